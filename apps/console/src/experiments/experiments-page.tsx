import { Anchor, Badge, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { apiGet } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { CursorPager, useCursorPages } from '../api/cursor-pages';
import { useSession } from '../auth/session';
import {
  experimentRunsPath,
  isRunning,
  RUNS_PAGE_SIZE,
  type Dataset,
  type ExperimentRun,
  type ExperimentRunStatus,
} from './experiments-api';

/** Outline badges in shades dark enough for WCAG AA contrast of their text on white. */
export const RUN_STATUS_COLORS: Record<ExperimentRunStatus, string> = {
  queued: 'gray.8',
  running: 'blue.9',
  completed: 'teal.9',
  failed: 'red.9',
  cancelled: 'grape.9',
};

/** The workspace's datasets and its experiment runs a page at a time; each opens its own screen. */
export function ExperimentsPage() {
  const { key } = useSession();
  const datasets = useQuery<Dataset[]>({
    queryKey: ['datasets'],
    queryFn: ({ signal }) => apiGet<{ datasets: Dataset[] }>(key ?? '', '/v1/private/datasets', signal).then((a) => a.datasets),
    enabled: key !== null,
  });
  const pages = useCursorPages();
  const before = pages.before;
  const runs = useQuery<ExperimentRun[]>({
    queryKey: ['experiment-runs', before],
    queryFn: ({ signal }) =>
      apiGet<{ experiment_runs: ExperimentRun[] }>(key ?? '', experimentRunsPath(before), signal).then((a) => a.experiment_runs),
    placeholderData: keepPreviousData,
    enabled: key !== null,
    // A run still working is followed until it ends.
    refetchInterval: (query) => (query.state.data?.some((run) => isRunning(run.status)) ? 2000 : false),
  });
  const runRows = runs.data ?? [];
  const datasetName = new Map((datasets.data ?? []).map((dataset) => [dataset.id, dataset.name]));
  return (
    <Stack>
      <Title order={1}>Experiments</Title>
      <Title order={2} size="h3">
        Datasets
      </Title>
      {datasets.isError && <ApiErrorAlert error={datasets.error} />}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Datasets table' }}>
        <Table striped data-testid="datasets-table">
          <Table.Caption>{datasets.isPending ? 'Loading datasets…' : `${datasets.data?.length ?? 0} dataset(s), by name`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Description</Table.Th>
              <Table.Th scope="col">Latest version</Table.Th>
              <Table.Th scope="col">Updated</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(datasets.data ?? []).map((dataset) => (
              <Table.Tr key={dataset.id} data-testid="dataset-row">
                <Table.Td>
                  <Anchor
                    renderRoot={(props) => <Link {...props} to="/experiments/datasets/$datasetId" params={{ datasetId: dataset.id }} />}
                  >
                    {dataset.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>{dataset.description ?? ''}</Table.Td>
                <Table.Td>{dataset.latest_version ?? 'none'}</Table.Td>
                <Table.Td>{new Date(dataset.updated_at).toLocaleString()}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <Title order={2} size="h3">
        Experiment runs
      </Title>
      {runs.isError && <ApiErrorAlert error={runs.error} />}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Experiment runs table' }}>
        <Table striped aria-busy={runs.isFetching} data-testid="experiment-runs-table">
          <Table.Caption>{runs.isPending ? 'Loading runs…' : `${runRows.length} run(s) on this page, newest first`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Run</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">Dataset</Table.Th>
              <Table.Th scope="col">Candidates</Table.Th>
              <Table.Th scope="col">Cells done</Table.Th>
              <Table.Th scope="col">Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {runRows.map((run) => (
              <Table.Tr key={run.id} data-testid="experiment-run-row">
                <Table.Td>
                  <Anchor renderRoot={(props) => <Link {...props} to="/experiments/runs/$runId" params={{ runId: run.id }} search={{}} />}>
                    {run.name ?? run.id}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Badge color={RUN_STATUS_COLORS[run.status] ?? 'gray.8'} variant="outline">
                    {run.status}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {datasetName.get(run.dataset_id) ?? run.dataset_id} v{run.dataset_version}
                </Table.Td>
                <Table.Td>{run.candidates.map((candidate) => candidate.name).join(', ')}</Table.Td>
                <Table.Td>
                  <Text size="sm">
                    {run.counts.succeeded + run.counts.errored} / {run.counts.cells}
                  </Text>
                </Table.Td>
                <Table.Td>{new Date(run.created_at).toLocaleString()}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <CursorPager
        pages={pages}
        label="experiment runs"
        lastId={runRows.at(-1)?.id}
        full={runRows.length === RUNS_PAGE_SIZE && !runs.isPlaceholderData}
        newerLabel="Newer runs"
        olderLabel="Older runs"
      />
    </Stack>
  );
}
