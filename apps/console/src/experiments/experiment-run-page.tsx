import { Anchor, Badge, Box, Code, Group, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { apiGet } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from '../auth/session';
import {
  datasetRowsPath,
  gridCellsPath,
  gridOf,
  isRunning,
  ROWS_PAGE_SIZE,
  shown,
  type CandidateSummary,
  type DatasetRowsPage,
  type ExperimentCellsPage,
  type ExperimentRun,
} from './experiments-api';
import { RUN_STATUS_COLORS } from './experiments-page';
import { Pager } from './pager';

const route = getRouteApi('/experiments/runs/$runId');

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const signed = (value: number, text: string) => `${value > 0 ? '+' : ''}${text}`;
const usd = (micros: number) => `$${(micros / 1_000_000).toFixed(6)}`;

/** An experiment run: its status and counts, the per-candidate summary against the baseline, and the results grid. */
export function ExperimentRunPage() {
  const { runId } = route.useParams();
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const { key } = useSession();
  const page = search.page ?? 0;
  const run = useQuery<ExperimentRun>({
    queryKey: ['experiment-run', runId],
    queryFn: ({ signal }) => apiGet<ExperimentRun>(key ?? '', `/v1/private/experiment_runs/${encodeURIComponent(runId)}`, signal),
    enabled: key !== null,
    // A run still working is followed until it ends.
    refetchInterval: (query) => (query.state.data && isRunning(query.state.data.status) ? 2000 : false),
  });
  const active = run.data?.candidates.filter((candidate) => candidate.active).length ?? 0;
  const cells = useQuery<ExperimentCellsPage>({
    queryKey: ['experiment-cells', runId, page, run.data?.status, run.data?.counts.pending],
    queryFn: ({ signal }) => apiGet<ExperimentCellsPage>(key ?? '', gridCellsPath(runId, page, active), signal),
    enabled: key !== null && run.data !== undefined,
    placeholderData: keepPreviousData,
  });
  const rows = useQuery<DatasetRowsPage>({
    queryKey: ['dataset-rows', run.data?.dataset_id, run.data?.dataset_version, page],
    queryFn: ({ signal }) =>
      apiGet<DatasetRowsPage>(key ?? '', datasetRowsPath(run.data?.dataset_id ?? '', run.data?.dataset_version ?? 1, page), signal),
    enabled: key !== null && run.data !== undefined,
    placeholderData: keepPreviousData,
  });
  const data = run.data;
  const grid = data && cells.data ? gridOf(data, cells.data.cells, rows.data?.rows ?? []) : [];
  return (
    <Stack>
      <Anchor renderRoot={(props) => <Link {...props} to="/experiments" />} size="sm">
        Experiments
      </Anchor>
      <Title order={1}>Experiment run {data?.name ?? runId}</Title>
      {run.isError && <ApiErrorAlert error={run.error} />}
      {data && (
        <Group gap="md" wrap="wrap">
          <Badge color={RUN_STATUS_COLORS[data.status] ?? 'gray.8'} variant="outline" size="lg" data-testid="experiment-run-status">
            {data.status}
          </Badge>
          <Text size="sm">
            Dataset{' '}
            <Anchor
              renderRoot={(props) => (
                <Link
                  {...props}
                  to="/experiments/datasets/$datasetId"
                  params={{ datasetId: data.dataset_id }}
                  search={{ version: data.dataset_version }}
                />
              )}
            >
              version {data.dataset_version}
            </Anchor>
          </Text>
          <Text size="sm">
            Cells: {data.counts.succeeded} succeeded, {data.counts.errored} errored, {data.counts.pending} pending of {data.counts.cells}
          </Text>
          <Text size="sm">
            Baseline: {data.baseline ?? 'none'} · minimum pass rate {percent(data.min_pass_rate)}
          </Text>
          <Text size="xs" ff="monospace">
            {data.id}
          </Text>
        </Group>
      )}
      {data?.error && (
        <Text c="red.9" size="sm">
          {data.error.code}: {data.error.message}
        </Text>
      )}
      {data && <Summary run={data} />}
      <Title order={2} size="h3">
        Results grid
      </Title>
      <Text size="sm">
        One line per dataset row, one column per candidate: the output, whether every evaluator passed, and each evaluator&apos;s score. A
        cell marked <strong>regressed</strong> passed on the baseline and does not pass here.
      </Text>
      {cells.isError && <ApiErrorAlert error={cells.error} />}
      {rows.isError && <ApiErrorAlert error={rows.error} />}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Results grid' }}>
        <Table withColumnBorders data-testid="results-grid" aria-busy={cells.isFetching}>
          <Table.Caption>
            {cells.isPending ? 'Loading cells…' : `Rows ${page * ROWS_PAGE_SIZE + 1}–${page * ROWS_PAGE_SIZE + grid.length} of the run`}
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Row</Table.Th>
              <Table.Th scope="col">Expected</Table.Th>
              {data?.candidates
                .filter((candidate) => candidate.active)
                .map((candidate) => (
                  <Table.Th scope="col" key={candidate.name}>
                    {candidate.name}
                    {candidate.name === data.baseline ? ' (baseline)' : ''}
                  </Table.Th>
                ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {grid.map((line) => (
              <Table.Tr key={line.rowId} data-testid="grid-row">
                <Table.Th scope="row" fw={400}>
                  <Code>{line.row ? shown(line.row.inputs) : line.rowId}</Code>
                </Table.Th>
                <Table.Td>{line.row ? shown(line.row.expected_output) : ''}</Table.Td>
                {line.cells.map(({ candidate, cell, regressed }) => (
                  <Table.Td
                    key={candidate}
                    bg={regressed ? 'red.0' : undefined}
                    style={regressed ? { outline: '2px solid var(--mantine-color-red-9)', outlineOffset: -2 } : undefined}
                    data-testid="grid-cell"
                    data-candidate={candidate}
                    data-regressed={regressed ? 'true' : 'false'}
                  >
                    {cell === null ? (
                      ''
                    ) : (
                      <Stack gap={4}>
                        <Group gap={4}>
                          {cell.status === 'pending' ? (
                            <Badge color="gray.8" variant="outline">
                              pending
                            </Badge>
                          ) : cell.status === 'errored' ? (
                            <Badge color="red.9" variant="outline">
                              error
                            </Badge>
                          ) : (
                            <Badge color={cell.passed ? 'teal.9' : 'red.9'} variant="outline">
                              {cell.passed ? 'passed' : 'failed'}
                            </Badge>
                          )}
                          {regressed && (
                            <Badge color="red.9" variant="filled">
                              regressed
                            </Badge>
                          )}
                        </Group>
                        <Text size="sm">{cell.error ? `${cell.error.code}: ${cell.error.message}` : shown(cell.output)}</Text>
                        {cell.evaluations.map((evaluation) => (
                          <Text key={evaluation.evaluator} size="xs" c={evaluation.passed ? undefined : 'red.9'} title={evaluation.reason}>
                            {evaluation.evaluator}: {evaluation.score.toFixed(2)} {evaluation.passed ? '✓' : '✗ (failed)'}
                          </Text>
                        ))}
                      </Stack>
                    )}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <Pager
        label="Pages of the grid"
        page={page}
        hasNext={cells.data?.next_offset !== null && cells.data?.next_offset !== undefined && !cells.isPlaceholderData}
        onPage={(next) => void navigate({ search: next > 0 ? { page: next } : {} })}
      />
    </Stack>
  );
}

/** Per candidate: rows, passed, errors, pass rate, mean scores, latency, cost, and the change against the baseline. */
function Summary({ run }: { run: ExperimentRun }) {
  const evaluators = [...new Set(run.summary.flatMap((summary) => Object.keys(summary.mean_scores)))];
  return (
    <Stack gap="xs">
      <Title order={2} size="h3">
        Candidates
      </Title>
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Candidate summary' }}>
        <Table striped data-testid="candidate-summary">
          <Table.Caption>Each candidate&apos;s results{run.baseline ? `, against the baseline ${run.baseline}` : ''}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Candidate</Table.Th>
              <Table.Th scope="col">Pass rate</Table.Th>
              <Table.Th scope="col">Passed / rows</Table.Th>
              <Table.Th scope="col">Errors</Table.Th>
              {evaluators.map((name) => (
                <Table.Th scope="col" key={name}>
                  Mean {name}
                </Table.Th>
              ))}
              <Table.Th scope="col">Latency p50 / p95 (ms)</Table.Th>
              <Table.Th scope="col">Cost</Table.Th>
              <Table.Th scope="col">Against the baseline</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {run.summary.map((summary) => (
              <Table.Tr key={summary.candidate} data-testid="candidate-summary-row">
                <Table.Th scope="row">{summary.candidate}</Table.Th>
                <Table.Td>
                  {percent(summary.pass_rate)}{' '}
                  <Badge color={summary.met_threshold ? 'teal.9' : 'red.9'} variant="outline">
                    {summary.met_threshold ? 'met' : 'below minimum'}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {summary.passed} / {summary.rows}
                </Table.Td>
                <Table.Td>{summary.errors}</Table.Td>
                {evaluators.map((name) => (
                  <Table.Td key={name}>{summary.mean_scores[name]?.toFixed(2) ?? ''}</Table.Td>
                ))}
                <Table.Td>
                  {summary.latency_ms.p50 ?? '–'} / {summary.latency_ms.p95 ?? '–'}
                </Table.Td>
                <Table.Td>{usd(summary.cost_micros)}</Table.Td>
                <Table.Td>
                  <Baseline summary={summary} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Stack>
  );
}

function Baseline({ summary }: { summary: CandidateSummary }) {
  const against = summary.vs_baseline;
  if (!against) return <Text size="sm">–</Text>;
  const regressed = against.regressed_rows.length;
  return (
    <Box>
      <Text size="sm">pass rate {signed(against.pass_rate_delta, percent(against.pass_rate_delta))}</Text>
      <Text size="sm" c={regressed > 0 ? 'red.9' : undefined} fw={regressed > 0 ? 700 : undefined} data-testid="regressed-rows">
        {regressed} regressed row(s)
      </Text>
    </Box>
  );
}
