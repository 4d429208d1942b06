import {
  Anchor,
  Badge,
  Button,
  Group,
  NativeSelect,
  ScrollArea,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createLink, getRouteApi } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { STATUS_COLORS } from './run-status';
import { apiGet } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { CursorPager, useCursorPages } from '../api/cursor-pages';
import { useSession } from '../auth/session';
import { exportedRuns, runsToCsv, runsToJsonl, type RunRow } from './runs-export';
import {
  hasLiveRuns,
  instantOfLocalInput,
  localInputOfInstant,
  parseRunsSearch,
  RUN_STATUSES,
  RUNS_PAGE_SIZE,
  runsRequestPath,
  type RunsSearch,
  type RunStatus,
} from './runs-search';

const route = getRouteApi('/runs');
/** A router link drawn as Mantine's Anchor. */
const AnchorLink = createLink(Anchor);

/** How often a page showing queued or running runs asks again, until none is left (ms). */
const LIVE_REFRESH_MS = 2_000;

export function RunsPage() {
  const search = route.useSearch();
  // A new filter starts again at the first page.
  return <RunsView key={JSON.stringify(search)} search={search} />;
}

function RunsView({ search }: { search: RunsSearch }) {
  const { key } = useSession();
  const pages = useCursorPages();
  const before = pages.before;
  const runs = useQuery<RunRow[]>({
    queryKey: ['runs', search, before],
    queryFn: ({ signal }) =>
      apiGet<{ requests: RunRow[] }>(key ?? '', runsRequestPath(search, { limit: RUNS_PAGE_SIZE, before }), signal).then(
        (answer) => answer.requests,
      ),
    placeholderData: keepPreviousData,
    enabled: key !== null,
    // Live updates: only while the page shows a run that has not ended; no polling otherwise.
    refetchInterval: (query) => (hasLiveRuns(query.state.data) ? LIVE_REFRESH_MS : false),
  });
  const rows = runs.data ?? [];
  return (
    <Stack>
      <Title order={1}>Runs</Title>
      <RunsFilters search={search} />
      <ExportButtons search={search} />
      {runs.isError && <ApiErrorAlert error={runs.error} />}
      {/* Focusable, so a keyboard scrolls the table sideways at phone width. */}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Runs table' }}>
        <Table striped highlightOnHover stickyHeader aria-busy={runs.isFetching} data-testid="runs-table">
          <Table.Caption>{runs.isPending ? 'Loading runs…' : `${rows.length} run(s) on this page, newest first`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Generated</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">Type</Table.Th>
              <Table.Th scope="col">Artifact</Table.Th>
              <Table.Th scope="col">User</Table.Th>
              <Table.Th scope="col">Model</Table.Th>
              <Table.Th scope="col">Cost (USD)</Table.Th>
              <Table.Th scope="col">Request id</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((run) => (
              <Table.Tr key={run.request_id} data-testid="run-row">
                <Table.Td>{new Date(run.generated_at).toLocaleString()}</Table.Td>
                <Table.Td>
                  <Badge color={STATUS_COLORS[run.status as RunStatus] ?? 'gray.8'} variant="outline" miw="max-content">
                    {run.status}
                  </Badge>
                </Table.Td>
                <Table.Td>{run.request_type}</Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace">
                    {run.requestable_type} {run.requestable_id}
                  </Text>
                </Table.Td>
                <Table.Td>{run.user ?? ''}</Table.Td>
                <Table.Td>{run.model ?? ''}</Table.Td>
                <Table.Td>{run.cost_micros === null ? '' : (run.cost_micros / 1_000_000).toFixed(6)}</Table.Td>
                <Table.Td>
                  {/* A link, so the detail is one Tab and Enter away; its name says which run it opens. */}
                  <AnchorLink to="/runs/$requestId" params={{ requestId: run.request_id }} aria-label={`Run ${run.request_id}`}>
                    <Text span size="xs" ff="monospace" c="inherit">
                      {run.request_id}
                    </Text>
                  </AnchorLink>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <CursorPager
        pages={pages}
        label="runs"
        lastId={rows.at(-1)?.request_id}
        full={rows.length === RUNS_PAGE_SIZE && !runs.isPlaceholderData}
        newerLabel="Newer runs"
        olderLabel="Older runs"
      />
    </Stack>
  );
}

function RunsFilters({ search }: { search: RunsSearch }) {
  const navigate = route.useNavigate();
  const [from, setFrom] = useState(localInputOfInstant(search.from));
  const [to, setTo] = useState(localInputOfInstant(search.to));
  const [status, setStatus] = useState<string>(search.status ?? '');
  const [artifact, setArtifact] = useState(search.artifact ?? '');
  const [user, setUser] = useState(search.user ?? '');
  const [model, setModel] = useState(search.model ?? '');
  const [apiKey, setApiKey] = useState(search.api_key ?? '');
  const [metadataKey, setMetadataKey] = useState(search.metadata_key ?? '');
  const [metadataValue, setMetadataValue] = useState(search.metadata_value ?? '');
  const [minCost, setMinCost] = useState(search.min_cost === undefined ? '' : String(search.min_cost));
  const [maxCost, setMaxCost] = useState(search.max_cost === undefined ? '' : String(search.max_cost));
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const key = metadataKey.trim() || undefined;
    // Read back through the URL's own parsing, so what is applied is exactly what a link to it shows.
    const next: RunsSearch = parseRunsSearch({
      from: instantOfLocalInput(from),
      to: instantOfLocalInput(to),
      status: status === '' ? undefined : (status as RunStatus),
      artifact: artifact.trim() || undefined,
      user: user.trim() || undefined,
      model: model.trim() || undefined,
      api_key: apiKey.trim() || undefined,
      metadata_key: key,
      metadata_value: key !== undefined && metadataValue !== '' ? metadataValue : undefined,
      min_cost: minCost.trim() || undefined,
      max_cost: maxCost.trim() || undefined,
    });
    void navigate({ search: next });
  };
  return (
    <form onSubmit={apply} aria-label="Filter runs">
      <Group align="end" wrap="wrap">
        <TextInput type="datetime-local" label="From" value={from} onChange={(event) => setFrom(event.currentTarget.value)} />
        <TextInput type="datetime-local" label="To" value={to} onChange={(event) => setTo(event.currentTarget.value)} />
        <NativeSelect
          label="Status"
          value={status}
          onChange={(event) => setStatus(event.currentTarget.value)}
          data={[{ value: '', label: 'Any' }, ...RUN_STATUSES.map((value) => ({ value, label: value }))]}
        />
        <TextInput
          label="Artifact id"
          description="A prompt, workflow or agent id"
          value={artifact}
          onChange={(event) => setArtifact(event.currentTarget.value)}
        />
        <TextInput label="End user" value={user} onChange={(event) => setUser(event.currentTarget.value)} />
        <TextInput
          label="Model"
          description="The model that answered"
          value={model}
          onChange={(event) => setModel(event.currentTarget.value)}
        />
        <TextInput
          label="API key id"
          description="The key that started the run"
          value={apiKey}
          onChange={(event) => setApiKey(event.currentTarget.value)}
        />
        <TextInput label="Metadata key" value={metadataKey} onChange={(event) => setMetadataKey(event.currentTarget.value)} />
        <TextInput
          label="Metadata value"
          description="Needs a key; any value when empty"
          value={metadataValue}
          onChange={(event) => setMetadataValue(event.currentTarget.value)}
        />
        <TextInput
          label="Min cost (USD)"
          inputMode="decimal"
          pattern="\d+(\.\d{1,6})?"
          value={minCost}
          onChange={(event) => setMinCost(event.currentTarget.value)}
        />
        <TextInput
          label="Max cost (USD)"
          inputMode="decimal"
          pattern="\d+(\.\d{1,6})?"
          value={maxCost}
          onChange={(event) => setMaxCost(event.currentTarget.value)}
        />
        <Button type="submit">Apply filters</Button>
        <Button variant="subtle" onClick={() => void navigate({ search: {} })}>
          Clear filters
        </Button>
      </Group>
    </form>
  );
}

function ExportButtons({ search }: { search: RunsSearch }) {
  const { key } = useSession();
  const [busy, setBusy] = useState<'csv' | 'jsonl' | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [done, setDone] = useState('');
  const exportAs = async (format: 'csv' | 'jsonl') => {
    setBusy(format);
    setFailure(null);
    setDone('');
    try {
      const rows: RunRow[] = [];
      for await (const page of exportedRuns(search, (path) => apiGet<{ requests: RunRow[] }>(key ?? '', path).then((a) => a.requests)))
        rows.push(...page);
      const text = format === 'csv' ? runsToCsv(rows) : runsToJsonl(rows);
      const type = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
      const url = URL.createObjectURL(new Blob([text], { type }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `waggle-runs.${format}`;
      link.click();
      URL.revokeObjectURL(url);
      setDone(`Exported ${rows.length} run(s) as ${format.toUpperCase()}.`);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(null);
    }
  };
  return (
    <Stack gap="xs">
      <Group>
        <Button variant="light" loading={busy === 'csv'} disabled={busy !== null} onClick={() => void exportAs('csv')}>
          Export CSV
        </Button>
        <Button variant="light" loading={busy === 'jsonl'} disabled={busy !== null} onClick={() => void exportAs('jsonl')}>
          Export JSONL
        </Button>
        <VisuallyHidden>The export holds every run the filters match, read from the API a page at a time.</VisuallyHidden>
      </Group>
      <Text size="sm" role="status" aria-live="polite">
        {done}
      </Text>
      {failure !== null && <ApiErrorAlert error={failure} />}
    </Stack>
  );
}
