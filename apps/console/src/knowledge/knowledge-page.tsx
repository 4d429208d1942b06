import { Anchor, Badge, Button, FileInput, Group, Modal, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { apiGet, apiRequest } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { CursorPager, useCursorPages } from '../api/cursor-pages';
import { DeleteButton } from '../agents/delete-button';
import { useSession } from '../auth/session';
import { useWorkspacePath } from '../auth/workspace';
import { KnowledgeBaseFields } from './knowledge-base-fields';
import {
  EMPTY_KNOWLEDGE_BASE_FORM,
  knowledgeBaseBody,
  formatBytes,
  ITEM_STATUS_COLORS,
  pagedPath,
  type AssetRow,
  type KnowledgeBaseRow,
} from './knowledge-logic';

/** The workspace's knowledge bases (create, delete, open) and its assets (list, upload). */
export function KnowledgePage() {
  return (
    <Stack gap="xl">
      <KnowledgeBases />
      <Assets />
    </Stack>
  );
}

function KnowledgeBases() {
  const { key } = useSession();
  const path = useWorkspacePath();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [creating, { open, close }] = useDisclosure(false);
  const knowledgeBases = useQuery({
    queryKey: ['knowledge-bases', key],
    queryFn: ({ signal }) =>
      apiGet<{ knowledge_bases: KnowledgeBaseRow[] }>(key ?? '', path('knowledge_bases'), signal).then((answer) => answer.knowledge_bases),
    enabled: key !== null,
  });
  const rows = knowledgeBases.data ?? [];
  return (
    <Stack component="section" aria-labelledby="knowledge-bases-title">
      <Group justify="space-between">
        <Title order={1} id="knowledge-bases-title">
          Knowledge bases
        </Title>
        <Button onClick={open}>New knowledge base</Button>
      </Group>
      {knowledgeBases.isError && <ApiErrorAlert error={knowledgeBases.error} />}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Knowledge bases table' }}>
        <Table striped highlightOnHover aria-busy={knowledgeBases.isFetching}>
          <Table.Caption>
            {knowledgeBases.isPending ? 'Loading knowledge bases…' : `${rows.length} knowledge base(s), oldest first`}
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Search</Table.Th>
              <Table.Th scope="col">Items</Table.Th>
              <Table.Th scope="col">Embedding model</Table.Th>
              <Table.Th scope="col">Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((knowledgeBase) => (
              <Table.Tr key={knowledgeBase.id} data-testid="knowledge-base-row">
                <Table.Td>
                  <Anchor
                    renderRoot={(props) => (
                      <Link {...props} to="/knowledge/$knowledgeBaseId" params={{ knowledgeBaseId: knowledgeBase.id }} />
                    )}
                  >
                    {knowledgeBase.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>{knowledgeBase.search_type}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {(['completed', 'queued', 'running', 'failed'] as const)
                      .filter((status) => knowledgeBase.items_by_status[status] > 0)
                      .map((status) => (
                        <Badge key={status} variant="outline" color={ITEM_STATUS_COLORS[status]} size="sm">
                          {knowledgeBase.items_by_status[status]} {status}
                        </Badge>
                      ))}
                    {knowledgeBase.items_count === 0 && <Text size="sm">none</Text>}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" ff="monospace">
                    {knowledgeBase.embedding_model}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <DeleteButton
                    what={`knowledge base ${knowledgeBase.name}`}
                    onDelete={async () => {
                      await apiRequest(key ?? '', 'DELETE', path(`knowledge_bases/${knowledgeBase.id}`));
                      await queryClient.invalidateQueries({ queryKey: ['knowledge-bases'] });
                    }}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <Modal opened={creating} onClose={close} title="New knowledge base" size="lg">
        <KnowledgeBaseFields
          label="New knowledge base"
          initial={EMPTY_KNOWLEDGE_BASE_FORM}
          submitLabel="Create knowledge base"
          onSubmit={async (values) => {
            const created = await apiRequest<{ knowledge_base: KnowledgeBaseRow }>(
              key ?? '',
              'POST',
              path('knowledge_bases'),
              knowledgeBaseBody(values, false),
            );
            await queryClient.invalidateQueries({ queryKey: ['knowledge-bases'] });
            close();
            await navigate({ to: '/knowledge/$knowledgeBaseId', params: { knowledgeBaseId: created.knowledge_base.id } });
          }}
        />
      </Modal>
    </Stack>
  );
}

/** Assets per page of the table. */
export const ASSETS_PAGE_SIZE = 20;

/** `GET /v1/private/assets` a page at a time (newest first, with a cursor); uploads through the public route. */
function Assets() {
  const { key } = useSession();
  const path = useWorkspacePath();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const before = pages.before;
  const assets = useQuery<AssetRow[]>({
    queryKey: ['assets', key, before],
    queryFn: ({ signal }) =>
      apiGet<{ assets: AssetRow[] }>(key ?? '', pagedPath('/v1/private/assets', ASSETS_PAGE_SIZE, before), signal).then(
        (answer) => answer.assets,
      ),
    placeholderData: keepPreviousData,
    enabled: key !== null,
  });
  const rows = assets.data ?? [];
  return (
    <Stack component="section" aria-labelledby="assets-title">
      <Title order={2} id="assets-title">
        Assets
      </Title>
      <AssetUpload
        onUploaded={async () => {
          pages.first();
          await queryClient.invalidateQueries({ queryKey: ['assets'] });
        }}
        upload={(form) => apiRequest<{ asset: AssetRow }>(key ?? '', 'POST', path('assets'), form)}
      />
      {assets.isError && <ApiErrorAlert error={assets.error} />}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Assets table' }}>
        <Table striped aria-busy={assets.isFetching} data-testid="assets-table">
          <Table.Caption>
            {assets.isPending ? 'Loading assets…' : `${rows.length} asset(s) on page ${pages.page}, newest first`}
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Type</Table.Th>
              <Table.Th scope="col">Size</Table.Th>
              <Table.Th scope="col">Uploaded</Table.Th>
              <Table.Th scope="col">Id</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((asset) => (
              <Table.Tr key={asset.id} data-testid="asset-row">
                <Table.Td>{asset.name}</Table.Td>
                <Table.Td>{asset.content_type}</Table.Td>
                <Table.Td>{formatBytes(asset.size_bytes)}</Table.Td>
                <Table.Td>{new Date(asset.created_at).toLocaleString()}</Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace">
                    {asset.id}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <CursorPager
        pages={pages}
        label="assets"
        lastId={rows.at(-1)?.id}
        full={rows.length === ASSETS_PAGE_SIZE && !assets.isPlaceholderData}
        newerLabel="Newer assets"
        olderLabel="Older assets"
      />
    </Stack>
  );
}

/** A file picked and sent as multipart (field `file`); the answer's error is shown as the catalog worded it. */
export function AssetUpload({
  upload,
  onUploaded,
  label = 'File to upload',
  button = 'Upload asset',
}: {
  upload: (form: FormData) => Promise<unknown>;
  onUploaded: () => Promise<void>;
  label?: string;
  button?: string;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [done, setDone] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setBusy(true);
    setFailure(null);
    setDone('');
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      await upload(form);
      setDone(`Uploaded ${file.name}.`);
      setFile(null);
      await onUploaded();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(event) => void submit(event)} aria-label={button}>
      <Stack gap="xs">
        <Group align="end" wrap="wrap">
          <FileInput label={label} description="At most 50 MiB" value={file} onChange={setFile} clearable w={{ base: '100%', sm: 320 }} />
          <Button type="submit" loading={busy} disabled={file === null}>
            {button}
          </Button>
        </Group>
        <Text size="sm" role="status">
          {done}
        </Text>
        {failure !== null && <ApiErrorAlert error={failure} />}
      </Stack>
    </form>
  );
}
