import '@mantine/charts/styles.css';
import { AreaChart, BarChart, LineChart } from '@mantine/charts';
import { Button, Card, Group, Progress, ScrollArea, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useId, useState, type ReactNode } from 'react';
import { apiGet } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from '../auth/session';
import {
  errorRate,
  groupedRows,
  groupTotals,
  OVERVIEW_RANGES,
  RANGE_LABELS,
  SERIES_COLORS,
  seriesPath,
  totalsRows,
  usd,
  type GroupedMetric,
  type OverviewGroup,
  type OverviewRange,
  type UsageSeries,
} from './overview-series';

const route = getRouteApi('/overview');

/** The charts take no keyboard focus (recharts' accessibility layer): the table beside each says what it shows. */
const NOT_FOCUSABLE = { accessibilityLayer: false };

interface BudgetView {
  id: string;
  scope: string;
  scope_id: string | null;
  period: string;
  limit_micros: number;
  spent_micros: number;
  period_resets_at: string;
}

export function OverviewPage() {
  const search = route.useSearch();
  const range = search.range ?? '24h';
  const group = search.group ?? 'model';
  const navigate = route.useNavigate();
  const { key } = useSession();
  const series = (by?: OverviewGroup) => ({
    queryKey: ['usage-series', range, by ?? null],
    // The range ends when the query runs (not at each render), so the key stays stable.
    queryFn: ({ signal }: { signal: AbortSignal }) => apiGet<UsageSeries>(key ?? '', seriesPath(range, new Date(), by), signal),
    placeholderData: keepPreviousData,
    enabled: key !== null,
  });
  const totals = useQuery(series());
  const grouped = useQuery(series(group));
  const budgets = useQuery({
    queryKey: ['budgets'],
    queryFn: ({ signal }) => apiGet<{ budgets: BudgetView[] }>(key ?? '', '/v1/private/budgets', signal).then((answer) => answer.budgets),
    enabled: key !== null,
  });
  return (
    <Stack>
      <Title order={1}>Overview</Title>
      <Group align="end" wrap="wrap">
        <div>
          <Text size="sm" fw={500} id="overview-range-label">
            Time range
          </Text>
          <SegmentedControl
            aria-labelledby="overview-range-label"
            value={range}
            onChange={(value) => void navigate({ search: { ...search, range: value as OverviewRange } })}
            data={OVERVIEW_RANGES.map((value) => ({ value, label: RANGE_LABELS[value] }))}
          />
        </div>
        <div>
          <Text size="sm" fw={500} id="overview-group-label">
            Break down by
          </Text>
          <SegmentedControl
            aria-labelledby="overview-group-label"
            value={group}
            onChange={(value) => void navigate({ search: { ...search, group: value as OverviewGroup } })}
            data={[
              { value: 'model', label: 'Model' },
              { value: 'artifact', label: 'Artifact' },
            ]}
          />
        </div>
      </Group>
      {totals.isError && <ApiErrorAlert error={totals.error} />}
      {totals.data && <Summary series={totals.data} />}
      {totals.data && <TotalsCharts series={totals.data} />}
      {grouped.isError && <ApiErrorAlert error={grouped.error} />}
      {grouped.data && <GroupedCharts series={grouped.data} group={group} />}
      <Budgets query={budgets} />
    </Stack>
  );
}

function Summary({ series }: { series: UsageSeries }) {
  const { totals } = series;
  const cards: Array<[string, string, string]> = [
    ['Requests', String(totals.requests), 'summary-requests'],
    ['Failed', `${totals.failed} (${errorRate(totals)} %)`, 'summary-failed'],
    ['Tokens', `${totals.total_tokens} (${totals.input_tokens} in, ${totals.output_tokens} out)`, 'summary-tokens'],
    ['Cost', usd(totals.cost_micros), 'summary-cost'],
    ['p95 latency', totals.p95_latency_ms === null ? 'no ended run' : `${totals.p95_latency_ms} ms`, 'summary-p95'],
    ['Queued now', String(totals.queued), 'summary-queued'],
    ['Running now', String(totals.running), 'summary-running'],
  ];
  return (
    <section aria-labelledby="overview-summary">
      <Title order={2} size="h3" id="overview-summary">
        {RANGE_LABELS[rangeOf(series)]} in this workspace
      </Title>
      <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }} mt="xs" component="dl">
        {cards.map(([label, value, testId]) => (
          <Card withBorder padding="sm" key={label}>
            <Text component="dt" size="sm">
              {label}
            </Text>
            <Text component="dd" fw={700} m={0} data-testid={testId}>
              {value}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
      <Text size="sm" mt="xs">
        Queue depths count this workspace&apos;s own runs of the range that are still queued or running: the load of other workspaces is
        never shown here.
      </Text>
    </section>
  );
}

/** The range a series answer spans, by its length. */
function rangeOf(series: UsageSeries): OverviewRange {
  const days = (Date.parse(series.to) - Date.parse(series.from)) / 86_400_000;
  return days > 8 ? '30d' : days > 1.5 ? '7d' : '24h';
}

/**
 * A chart and, behind a toggle, a table of the same numbers (the chart's text alternative).
 * The chart itself is hidden from assistive technology: the table says everything it shows.
 */
function ChartFigure({ title, table, children }: { title: string; table: ReactNode; children: ReactNode }) {
  const [shown, setShown] = useState(false);
  const id = useId();
  return (
    <Card withBorder component="figure" m={0} aria-labelledby={`${id}-title`}>
      <Group justify="space-between" wrap="nowrap">
        <Title order={3} size="h5" id={`${id}-title`}>
          {title}
        </Title>
        <Button variant="default" size="xs" aria-expanded={shown} aria-controls={`${id}-table`} onClick={() => setShown((value) => !value)}>
          {shown ? 'Hide table' : 'Show table'}
        </Button>
      </Group>
      <div aria-hidden="true">{children}</div>
      <div id={`${id}-table`} hidden={!shown}>
        {/* Focusable, so a keyboard scrolls the table sideways at phone width. */}
        <ScrollArea type="auto" mah={320} viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': `${title}: table` }}>
          {table}
        </ScrollArea>
      </div>
    </Card>
  );
}

function TotalsCharts({ series }: { series: UsageSeries }) {
  const rows = totalsRows(series);
  const table = (caption: string, columns: Array<[string, (row: (typeof rows)[number]) => string]>) => (
    <Table striped data-testid="totals-table">
      <Table.Caption>{caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">Bucket (UTC)</Table.Th>
          {columns.map(([name]) => (
            <Table.Th scope="col" key={name}>
              {name}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.bucket}>
            <Table.Th scope="row">{row.label}</Table.Th>
            {columns.map(([name, value]) => (
              <Table.Td key={name}>{value(row)}</Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <ChartFigure
        title="Requests and failures"
        table={table('Requests, failures and error rate per bucket', [
          ['Requests', (row) => String(row.requests)],
          ['Failed', (row) => String(row.failed)],
          ['Error rate (%)', (row) => String(row.error_rate)],
        ])}
      >
        <AreaChart
          areaChartProps={NOT_FOCUSABLE}
          h={220}
          data={rows}
          dataKey="label"
          curveType="linear"
          withLegend
          series={[
            { name: 'requests', label: 'Requests', color: 'blue.9' },
            { name: 'failed', label: 'Failed', color: 'red.9' },
          ]}
        />
      </ChartFigure>
      <ChartFigure
        title="p95 latency (ms)"
        table={table('p95 latency of the ended runs per bucket', [
          ['p95 latency (ms)', (row) => (row.p95_latency_ms === null ? '–' : String(row.p95_latency_ms))],
        ])}
      >
        <LineChart
          lineChartProps={NOT_FOCUSABLE}
          h={220}
          data={rows}
          dataKey="label"
          curveType="linear"
          connectNulls={false}
          series={[{ name: 'p95_latency_ms', label: 'p95 latency (ms)', color: 'grape.9' }]}
        />
      </ChartFigure>
      <ChartFigure
        title="Tokens"
        table={table('Input, output and total tokens per bucket', [
          ['Input', (row) => String(row.input_tokens)],
          ['Output', (row) => String(row.output_tokens)],
          ['Total', (row) => String(row.total_tokens)],
        ])}
      >
        <BarChart
          barChartProps={NOT_FOCUSABLE}
          h={220}
          data={rows}
          dataKey="label"
          type="stacked"
          withLegend
          series={[
            { name: 'input_tokens', label: 'Input', color: 'teal.9' },
            { name: 'output_tokens', label: 'Output', color: 'orange.9' },
          ]}
        />
      </ChartFigure>
      <ChartFigure title="Cost (USD)" table={table('Cost per bucket', [['Cost (USD)', (row) => usd(row.cost_micros)]])}>
        <AreaChart
          areaChartProps={NOT_FOCUSABLE}
          h={220}
          data={rows}
          dataKey="label"
          curveType="linear"
          valueFormatter={(value) => `$${value.toFixed(6)}`}
          series={[{ name: 'cost_usd', label: 'Cost (USD)', color: 'indigo.9' }]}
        />
      </ChartFigure>
    </SimpleGrid>
  );
}

const GROUPED_METRICS: Array<[GroupedMetric, string]> = [
  ['requests', 'Requests'],
  ['total_tokens', 'Tokens'],
  ['cost_micros', 'Cost (USD)'],
];

function GroupedCharts({ series, group }: { series: UsageSeries; group: OverviewGroup }) {
  const what = group === 'model' ? 'model' : 'artifact';
  const totals = groupTotals(series);
  return (
    <section aria-labelledby="overview-groups">
      <Title order={2} size="h3" id="overview-groups">
        By {what}
      </Title>
      <SimpleGrid cols={{ base: 1, md: 3 }} mt="xs">
        {GROUPED_METRICS.map(([metric, label]) => {
          const { groups, rows } = groupedRows(series, metric);
          return (
            <ChartFigure
              key={metric}
              title={`${label} by ${what}`}
              table={
                <Table striped>
                  <Table.Caption>{`${label} per bucket and ${what}`}</Table.Caption>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Bucket (UTC)</Table.Th>
                      {groups.map((name) => (
                        <Table.Th scope="col" key={name}>
                          {name}
                        </Table.Th>
                      ))}
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {rows.map((row) => (
                      <Table.Tr key={String(row.label)}>
                        <Table.Th scope="row">{row.label}</Table.Th>
                        {groups.map((name) => (
                          <Table.Td key={name}>{metric === 'cost_micros' ? `$${Number(row[name]).toFixed(6)}` : row[name]}</Table.Td>
                        ))}
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              }
            >
              <BarChart
                barChartProps={NOT_FOCUSABLE}
                h={220}
                data={rows}
                dataKey="label"
                type="stacked"
                withLegend
                series={groups.map((name, index) => ({ name, color: SERIES_COLORS[index % SERIES_COLORS.length] }))}
              />
            </ChartFigure>
          );
        })}
      </SimpleGrid>
      <ScrollArea type="auto" mt="md" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': `Totals by ${what}` }}>
        <Table striped data-testid="group-totals">
          <Table.Caption>{`The range's totals by ${what}, the most requested first (past the 10th, summed as Other)`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{group === 'model' ? 'Model' : 'Artifact id'}</Table.Th>
              <Table.Th scope="col">Requests</Table.Th>
              <Table.Th scope="col">Failed</Table.Th>
              <Table.Th scope="col">Tokens</Table.Th>
              <Table.Th scope="col">Cost (USD)</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {totals.map((total) => (
              <Table.Tr key={total.group} data-testid="group-total-row">
                <Table.Th scope="row">
                  <Text size="sm" ff={group === 'artifact' ? 'monospace' : undefined}>
                    {total.group}
                  </Text>
                </Table.Th>
                <Table.Td>{total.requests}</Table.Td>
                <Table.Td>{total.failed}</Table.Td>
                <Table.Td>{total.total_tokens}</Table.Td>
                <Table.Td>{usd(total.cost_micros)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </section>
  );
}

function Budgets({ query }: { query: { data?: BudgetView[]; isError: boolean; error: Error | null; isPending: boolean } }) {
  return (
    <section aria-labelledby="overview-budgets">
      <Title order={2} size="h3" id="overview-budgets">
        Budgets used
      </Title>
      {query.isError && query.error && <ApiErrorAlert error={query.error} />}
      {query.isPending && <Text size="sm">Loading budgets…</Text>}
      {query.data?.length === 0 && <Text size="sm">This workspace has no budget (usage governance: POST /v1/private/budgets).</Text>}
      <Stack gap="sm" mt="xs">
        {query.data?.map((budget) => {
          const percent = Math.round((budget.spent_micros / budget.limit_micros) * 1000) / 10;
          const name = `${budget.scope}${budget.scope_id === null ? '' : ` ${budget.scope_id}`}, ${budget.period}`;
          return (
            <div key={budget.id} data-testid="budget">
              <Group justify="space-between" wrap="wrap">
                <Text size="sm" fw={500}>
                  {name}
                </Text>
                <Text size="sm">
                  {usd(budget.spent_micros)} of {usd(budget.limit_micros)} ({percent} %), resets{' '}
                  {new Date(budget.period_resets_at).toLocaleString()}
                </Text>
              </Group>
              <Progress
                value={Math.min(100, percent)}
                color={percent >= 100 ? 'red.9' : percent >= 80 ? 'orange.9' : 'teal.9'}
                aria-label={`Budget ${name}: ${percent} % used`}
              />
            </div>
          );
        })}
      </Stack>
    </section>
  );
}
