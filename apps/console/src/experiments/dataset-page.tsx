import { Anchor, Code, ScrollArea, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { apiGet } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { useSession } from '../auth/session';
import { datasetRowsPath, shown, type DatasetDetail, type DatasetRowsPage } from './experiments-api';
import { Pager } from './pager';

const route = getRouteApi('/experiments/datasets/$datasetId');

/** A dataset: its versions, newest first, and the rows of the chosen version a page at a time. */
export function DatasetPage() {
  const { datasetId } = route.useParams();
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const { key } = useSession();
  const dataset = useQuery<DatasetDetail>({
    queryKey: ['dataset', datasetId],
    queryFn: ({ signal }) => apiGet<DatasetDetail>(key ?? '', `/v1/private/datasets/${encodeURIComponent(datasetId)}`, signal),
    enabled: key !== null,
  });
  const version = search.version ?? dataset.data?.latest_version ?? null;
  const page = search.page ?? 0;
  const rows = useQuery<DatasetRowsPage>({
    queryKey: ['dataset-rows', datasetId, version, page],
    queryFn: ({ signal }) => apiGet<DatasetRowsPage>(key ?? '', datasetRowsPath(datasetId, version ?? 1, page), signal),
    enabled: key !== null && version !== null,
    placeholderData: keepPreviousData,
  });
  return (
    <Stack>
      <Anchor renderRoot={(props) => <Link {...props} to="/experiments" />} size="sm">
        Experiments
      </Anchor>
      <Title order={1}>Dataset {dataset.data?.name ?? ''}</Title>
      {dataset.data?.description && <Text size="sm">{dataset.data.description}</Text>}
      {dataset.isError && <ApiErrorAlert error={dataset.error} />}
      <Title order={2} size="h3">
        Versions
      </Title>
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Dataset versions' }}>
        <Table striped data-testid="dataset-versions-table">
          <Table.Caption>Choose a version to see its rows</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Version</Table.Th>
              <Table.Th scope="col">Rows</Table.Th>
              <Table.Th scope="col">Made from</Table.Th>
              <Table.Th scope="col">Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(dataset.data?.versions ?? []).map((item) => (
              <Table.Tr key={item.version} data-testid="dataset-version-row" aria-current={item.version === version ? 'true' : undefined}>
                <Table.Td>
                  <UnstyledButton
                    onClick={() => void navigate({ search: { version: item.version } })}
                    td="underline"
                    fw={item.version === version ? 700 : 400}
                    c="blue.9"
                  >
                    Version {item.version}
                    {item.version === version ? ' (shown)' : ''}
                  </UnstyledButton>
                </Table.Td>
                <Table.Td>{item.row_count}</Table.Td>
                <Table.Td>{item.base_version === null ? 'rows or an import' : `version ${item.base_version}`}</Table.Td>
                <Table.Td>{new Date(item.created_at).toLocaleString()}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      {version !== null && (
        <>
          <Title order={2} size="h3">
            Rows of version {version}
          </Title>
          {rows.isError && <ApiErrorAlert error={rows.error} />}
          <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Dataset rows' }}>
            <Table striped data-testid="dataset-rows-table" aria-busy={rows.isFetching}>
              <Table.Caption>
                {/* The previous page stays shown while the next loads: its count is not this version's. */}
                {rows.isPending || rows.isPlaceholderData ? 'Loading rows…' : `${rows.data?.total ?? 0} row(s) in version ${version}`}
              </Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Inputs</Table.Th>
                  <Table.Th scope="col">Expected output</Table.Th>
                  <Table.Th scope="col">Metadata</Table.Th>
                  <Table.Th scope="col">Row id</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {(rows.data?.rows ?? []).map((row) => (
                  <Table.Tr key={row.id} data-testid="dataset-row-item">
                    <Table.Td>
                      <Code>{shown(row.inputs)}</Code>
                    </Table.Td>
                    <Table.Td>{shown(row.expected_output)}</Table.Td>
                    <Table.Td>{Object.keys(row.metadata).length > 0 ? <Code>{shown(row.metadata)}</Code> : ''}</Table.Td>
                    <Table.Td>
                      <Text size="xs" ff="monospace">
                        {row.id}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
          <Pager
            label="Pages of rows"
            page={page}
            hasNext={rows.data?.next_offset !== null && rows.data?.next_offset !== undefined && !rows.isPlaceholderData}
            onPage={(next) => void navigate({ search: { version, ...(next > 0 && { page: next }) } })}
          />
        </>
      )}
    </Stack>
  );
}
