import {
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  Loader,
  NativeSelect,
  ScrollArea,
  Spoiler,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { apiGet, apiRequest } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { CursorPager, useCursorPages } from '../api/cursor-pages';
import { DeleteButton } from '../agents/delete-button';
import { useSession } from '../auth/session';
import { useWorkspacePath } from '../auth/workspace';
import { KnowledgeBaseFields } from './knowledge-base-fields';
import {
  formOfKnowledgeBase,
  knowledgeBaseBody,
  ITEM_STATUS_COLORS,
  pagedPath,
  itemsRefetchInterval,
  pendingItems,
  scoreCells,
  searchBody,
  SEARCH_TYPES,
  type AssetRow,
  type KnowledgeBaseItemRow,
  type KnowledgeBaseRow,
  type SearchChunk,
  type SearchForm,
  type SearchType,
} from './knowledge-logic';
import { AssetUpload } from './knowledge-page';

const route = getRouteApi('/knowledge/$knowledgeBaseId');

/** One knowledge base: its items and their ingestion, adding documents, the search playground and its settings. */
export function KnowledgeBasePage() {
  const { knowledgeBaseId } = route.useParams();
  const { key } = useSession();
  const path = useWorkspacePath();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const knowledgeBase = useQuery({
    queryKey: ['knowledge-base', knowledgeBaseId],
    queryFn: ({ signal }) =>
      apiGet<{ knowledge_base: KnowledgeBaseRow }>(key ?? '', path(`knowledge_bases/${knowledgeBaseId}`), signal).then(
        (answer) => answer.knowledge_base,
      ),
    enabled: key !== null,
  });
  return (
    <Stack>
      <Anchor component={Link} to="/knowledge" size="sm">
        ← All knowledge bases and assets
      </Anchor>
      {knowledgeBase.isError && <ApiErrorAlert error={knowledgeBase.error} />}
      {knowledgeBase.isPending && <Loader aria-label="Loading the knowledge base" />}
      {knowledgeBase.data && (
        <>
          <Group justify="space-between">
            <Title order={1}>{knowledgeBase.data.name}</Title>
            <DeleteButton
              size="sm"
              what={`knowledge base ${knowledgeBase.data.name}`}
              onDelete={async () => {
                await apiRequest(key ?? '', 'DELETE', path(`knowledge_bases/${knowledgeBaseId}`));
                await queryClient.invalidateQueries({ queryKey: ['knowledge-bases'] });
                await navigate({ to: '/knowledge' });
              }}
            />
          </Group>
          <Text size="sm">
            Embedding model <Code>{knowledgeBase.data.embedding_model}</Code>
            {knowledgeBase.data.embedding_dimensions !== null && ` (${knowledgeBase.data.embedding_dimensions} dimensions)`} · id{' '}
            <Code>{knowledgeBase.data.id}</Code>
          </Text>
          <Tabs defaultValue="items" keepMounted>
            <Tabs.List>
              <Tabs.Tab value="items">Items</Tabs.Tab>
              <Tabs.Tab value="search">Search</Tabs.Tab>
              <Tabs.Tab value="settings">Settings</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="items" pt="md">
              <Items knowledgeBaseId={knowledgeBaseId} />
            </Tabs.Panel>
            <Tabs.Panel value="search" pt="md">
              <SearchPlayground knowledgeBase={knowledgeBase.data} />
            </Tabs.Panel>
            <Tabs.Panel value="settings" pt="md">
              <KnowledgeBaseFields
                key={knowledgeBase.data.updated_at}
                label="Knowledge base settings"
                initial={formOfKnowledgeBase(knowledgeBase.data)}
                submitLabel="Save knowledge base"
                onSubmit={async (values) => {
                  const saved = await apiRequest<{ knowledge_base: KnowledgeBaseRow }>(
                    key ?? '',
                    'PATCH',
                    path(`knowledge_bases/${knowledgeBaseId}`),
                    knowledgeBaseBody(values, true),
                  );
                  queryClient.setQueryData(['knowledge-base', knowledgeBaseId], saved.knowledge_base);
                  await queryClient.invalidateQueries({ queryKey: ['knowledge-bases'] });
                }}
              />
            </Tabs.Panel>
          </Tabs>
        </>
      )}
    </Stack>
  );
}

/** Items per page of the table. */
const ITEMS_PAGE_SIZE = 20;

/**
 * The items a page at a time (`GET /v1/private/knowledge_bases/{id}/items`, newest first, with a
 * cursor), the page shown read again every 2 s while any of its items is queued or running, and
 * the ways to add one (a new item shows on the first page, which adding goes back to).
 */
function Items({ knowledgeBaseId }: { knowledgeBaseId: string }) {
  const { key } = useSession();
  const path = useWorkspacePath();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const before = pages.before;
  const items = useQuery<KnowledgeBaseItemRow[]>({
    queryKey: ['knowledge-base-items', knowledgeBaseId, before],
    queryFn: ({ signal }) =>
      apiGet<{ knowledge_base_items: KnowledgeBaseItemRow[] }>(
        key ?? '',
        pagedPath(`/v1/private/knowledge_bases/${knowledgeBaseId}/items`, ITEMS_PAGE_SIZE, before),
        signal,
      ).then((answer) => answer.knowledge_base_items),
    placeholderData: keepPreviousData,
    enabled: key !== null,
    refetchInterval: (query) => itemsRefetchInterval(query.state.data),
  });
  const rows = items.data ?? [];
  const pending = pendingItems(rows);
  const addItem = async (body: Record<string, unknown>) => {
    await apiRequest(key ?? '', 'POST', `/v1/private/knowledge_bases/${knowledgeBaseId}/items`, body);
    pages.first();
    await queryClient.invalidateQueries({ queryKey: ['knowledge-base-items', knowledgeBaseId] });
    await queryClient.invalidateQueries({ queryKey: ['knowledge-base', knowledgeBaseId] });
  };
  return (
    <Stack>
      <AssetUpload
        label="Document to add"
        button="Upload and add"
        upload={async (form) => {
          const uploaded = await apiRequest<{ asset: AssetRow }>(key ?? '', 'POST', path('assets'), form);
          await addItem({ asset_id: uploaded.asset.id });
          await queryClient.invalidateQueries({ queryKey: ['assets'] });
        }}
        onUploaded={async () => undefined}
      />
      <AddByUrl onAdd={(url) => addItem({ url })} />
      {items.isError && <ApiErrorAlert error={items.error} />}
      <Text size="sm" role="status" data-testid="ingestion-status">
        {items.isPending
          ? ''
          : pending > 0
            ? `Ingesting ${pending} item(s) of this page; the page refreshes until they finish.`
            : 'Every item of this page is ingested.'}
      </Text>
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Items table' }}>
        <Table striped aria-busy={items.isFetching} data-testid="items-table">
          <Table.Caption>{items.isPending ? 'Loading items…' : `${rows.length} item(s) on page ${pages.page}, newest first`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Source</Table.Th>
              <Table.Th scope="col">Ingestion</Table.Th>
              <Table.Th scope="col">Chunks</Table.Th>
              <Table.Th scope="col">Updated</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((item) => (
              <Table.Tr key={item.id} data-testid="item-row" data-status={item.run_status}>
                <Table.Td>{item.name}</Table.Td>
                <Table.Td>{item.item_type}</Table.Td>
                <Table.Td>
                  <Badge variant="outline" color={ITEM_STATUS_COLORS[item.run_status] ?? 'gray.8'}>
                    {item.run_status}
                  </Badge>
                  {item.error && (
                    <Text size="xs" c="red.9">
                      {item.error}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{item.chunks_count}</Table.Td>
                <Table.Td>{new Date(item.updated_at).toLocaleString()}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <CursorPager
        pages={pages}
        label="items"
        lastId={rows.at(-1)?.id}
        full={rows.length === ITEMS_PAGE_SIZE && !items.isPlaceholderData}
        newerLabel="Newer items"
        olderLabel="Older items"
      />
    </Stack>
  );
}

function AddByUrl({ onAdd }: { onAdd: (url: string) => Promise<void> }) {
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      await onAdd(url.trim());
      setUrl('');
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(event) => void submit(event)} aria-label="Add a document by URL">
      <Stack gap="xs">
        <Group align="end" wrap="wrap">
          <TextInput
            label="Document URL"
            description="An https:// link the service fetches"
            value={url}
            onChange={(event) => setUrl(event.currentTarget.value)}
            w={{ base: '100%', sm: 420 }}
          />
          <Button type="submit" variant="default" loading={busy} disabled={url.trim() === ''}>
            Add URL
          </Button>
        </Group>
        {failure !== null && <ApiErrorAlert error={failure} />}
      </Stack>
    </form>
  );
}

/** `POST …/search` with the knowledge base's defaults filled in: each chunk with its lexical, vector and fused scores. */
function SearchPlayground({ knowledgeBase }: { knowledgeBase: KnowledgeBaseRow }) {
  const { key } = useSession();
  const path = useWorkspacePath();
  const [form, setForm] = useState<SearchForm>({
    query: '',
    searchType: knowledgeBase.search_type,
    chunkLimit: String(knowledgeBase.search_chunk_limit),
    threshold: String(knowledgeBase.search_score_threshold),
  });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [result, setResult] = useState<{ searchType: SearchType; chunks: SearchChunk[] } | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const answer = await apiRequest<{ response: { search_type: SearchType; chunks: SearchChunk[] } }>(
        key ?? '',
        'POST',
        path(`knowledge_bases/${knowledgeBase.id}/search`),
        searchBody(form),
      );
      setResult({ searchType: answer.response.search_type, chunks: answer.response.chunks });
    } catch (error) {
      setFailure(error);
      setResult(null);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack>
      <form onSubmit={(event) => void submit(event)} aria-label="Search the knowledge base">
        <Group align="end" wrap="wrap">
          <TextInput
            label="Query"
            required
            value={form.query}
            onChange={(event) => setForm({ ...form, query: event.currentTarget.value })}
            w={{ base: '100%', sm: 360 }}
          />
          <NativeSelect
            label="Search type"
            value={form.searchType}
            onChange={(event) => setForm({ ...form, searchType: event.currentTarget.value as SearchType })}
            data={SEARCH_TYPES.map((value) => ({ value, label: value }))}
          />
          <TextInput
            label="Chunk limit"
            value={form.chunkLimit}
            onChange={(event) => setForm({ ...form, chunkLimit: event.currentTarget.value })}
            w={110}
          />
          <TextInput
            label="Score threshold"
            value={form.threshold}
            onChange={(event) => setForm({ ...form, threshold: event.currentTarget.value })}
            w={130}
          />
          <Button type="submit" loading={busy}>
            Search
          </Button>
        </Group>
      </form>
      {failure !== null && <ApiErrorAlert error={failure} />}
      <Text size="sm" role="status">
        {result && `${result.chunks.length} chunk(s) found by ${result.searchType} search, best first.`}
      </Text>
      {result && result.chunks.length > 0 && (
        <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Search results' }}>
          <Table striped data-testid="search-results">
            <Table.Caption>
              Lexical is BM25 normalised to 0–1, vector is cosine similarity, fused is hybrid search's reciprocal-rank fusion (the score the
              threshold applies to); — where the search did not compute it.
            </Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">#</Table.Th>
                <Table.Th scope="col">Chunk</Table.Th>
                <Table.Th scope="col">Lexical</Table.Th>
                <Table.Th scope="col">Vector</Table.Th>
                <Table.Th scope="col">Fused</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {result.chunks.map((chunk, index) => {
                const cells = scoreCells(chunk, result.searchType);
                return (
                  <Table.Tr key={chunk.id} data-testid="search-chunk">
                    <Table.Td>{index + 1}</Table.Td>
                    <Table.Td maw={560}>
                      <Text size="xs" fw={700}>
                        {chunk.item_name} · chunk {chunk.position}
                      </Text>
                      <Spoiler maxHeight={72} showLabel="Show all" hideLabel="Show less">
                        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                          {chunk.content}
                        </Text>
                      </Spoiler>
                    </Table.Td>
                    <Table.Td data-testid="score-lexical">{cells.lexical}</Table.Td>
                    <Table.Td data-testid="score-vector">{cells.vector}</Table.Td>
                    <Table.Td data-testid="score-fused">{cells.fused}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
    </Stack>
  );
}
