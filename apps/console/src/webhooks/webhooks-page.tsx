import {
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  NativeSelect,
  NumberInput,
  ScrollArea,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { Fragment, useState, type FormEvent } from 'react';
import { apiGet, apiRequest } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { CursorPager, useCursorPages } from '../api/cursor-pages';
import { DELIVERY_STATUSES, listDeliveries, redeliver, type Delivery, type DeliveryStatus } from '../api/deliveries';
import { useSession } from '../auth/session';
import { useWorkspacePath } from '../auth/workspace';
import { deliveriesFilter, DELIVERIES_PAGE_SIZE, type WebhooksSearch, type WebhookTab } from './webhooks-search';

const route = getRouteApi('/webhooks');

/** Outline badges in shades dark enough for WCAG AA contrast of their text on white. */
const STATUS_COLORS: Record<DeliveryStatus, string> = {
  pending: 'blue.9',
  succeeded: 'teal.9',
  gone: 'gray.8',
  refused: 'orange.9',
  dead_lettered: 'red.9',
};

export function WebhooksPage() {
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const tab = search.tab ?? 'deliveries';
  return (
    <Stack>
      <Title order={1}>Webhooks</Title>
      <Tabs value={tab} onChange={(value) => void navigate({ search: { tab: (value ?? 'deliveries') as WebhookTab } })} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="deliveries">Delivery log</Tabs.Tab>
          <Tabs.Tab value="dead-letters">Dead letters</Tabs.Tab>
          <Tabs.Tab value="secrets">Secrets</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="deliveries" pt="md">
          <DeliveryLog key={JSON.stringify(search)} search={search} />
        </Tabs.Panel>
        <Tabs.Panel value="dead-letters" pt="md">
          <DeliveryLog key={JSON.stringify(search)} search={search} />
        </Tabs.Panel>
        <Tabs.Panel value="secrets" pt="md">
          <Secrets />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function DeliveryLog({ search }: { search: WebhooksSearch }) {
  const { key } = useSession();
  const queryClient = useQueryClient();
  const deadLetters = search.tab === 'dead-letters';
  const filter = deliveriesFilter(search);
  const pages = useCursorPages();
  const before = pages.before;
  const [opened, setOpened] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const deliveries = useQuery({
    queryKey: ['deliveries', filter, before],
    queryFn: ({ signal }) => listDeliveries(key ?? '', { ...filter, limit: DELIVERIES_PAGE_SIZE, ...(before && { before }) }, signal),
    placeholderData: keepPreviousData,
    enabled: key !== null,
  });
  const rows = deliveries.data ?? [];
  const replay = useMutation({
    mutationFn: async (ids: string[]) => {
      const answers: Delivery[] = [];
      // One at a time: the redeliveries stay in the order shown, and a failure stops at its delivery.
      for (const id of ids) answers.push(await redeliver(key ?? '', id));
      return answers;
    },
    onSuccess: (answers) => {
      setNotice(
        answers.length === 1
          ? `Delivery ${answers[0].delivery_id} sent again: now ${answers[0].status}.`
          : `${answers.length} deliveries sent again.`,
      );
      void queryClient.invalidateQueries({ queryKey: ['deliveries'] });
    },
  });
  const what = deadLetters ? 'dead letter(s)' : 'deliveries';
  return (
    <Stack>
      <Text size="sm">
        {deadLetters
          ? 'Callbacks whose every attempt failed. Replay sends one again (same webhook-id, signed with the secrets in force now) with a fresh attempt budget.'
          : 'Every callback this workspace sent, newest first, with each attempt (GET /v1/private/deliveries).'}
      </Text>
      <DeliveryFilters search={search} />
      {deliveries.isError && <ApiErrorAlert error={deliveries.error} />}
      {replay.isError && <ApiErrorAlert error={replay.error} />}
      <Text role="status" size="sm" data-testid="delivery-notice">
        {notice}
      </Text>
      {deadLetters && (
        <Group>
          <Button
            color="red.9"
            disabled={rows.length === 0 || replay.isPending}
            loading={replay.isPending}
            onClick={() => replay.mutate(rows.map((row) => row.delivery_id))}
          >
            Replay all shown ({rows.length})
          </Button>
        </Group>
      )}
      {/* Focusable, so a keyboard scrolls the table sideways at phone width. */}
      <ScrollArea
        type="auto"
        viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': deadLetters ? 'Dead letters table' : 'Deliveries table' }}
      >
        <Table striped aria-busy={deliveries.isFetching} data-testid="deliveries-table">
          <Table.Caption>{deliveries.isPending ? 'Loading…' : `${rows.length} ${what} on this page, newest first`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Created</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">Event</Table.Th>
              <Table.Th scope="col">Request id</Table.Th>
              <Table.Th scope="col">URL</Table.Th>
              <Table.Th scope="col">Attempts</Table.Th>
              <Table.Th scope="col">Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((delivery) => (
              <Fragment key={delivery.delivery_id}>
                <Table.Tr data-testid="delivery-row" data-delivery-id={delivery.delivery_id}>
                  <Table.Td>{new Date(delivery.created_at).toLocaleString()}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Badge
                      color={STATUS_COLORS[delivery.status]}
                      variant="outline"
                      data-testid="delivery-status"
                      styles={{ root: { overflow: 'visible' }, label: { overflow: 'visible' } }}
                    >
                      {delivery.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{delivery.event_type}</Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace">
                      {delivery.request_id}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                      {delivery.url}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Button
                      variant="default"
                      size="xs"
                      aria-expanded={opened === delivery.delivery_id}
                      aria-controls={`attempts-${delivery.delivery_id}`}
                      aria-label={`${delivery.attempts.length} attempt(s) of ${delivery.delivery_id}`}
                      onClick={() => setOpened((current) => (current === delivery.delivery_id ? null : delivery.delivery_id))}
                    >
                      {delivery.attempts.length} attempt(s)
                    </Button>
                  </Table.Td>
                  <Table.Td>
                    <Button
                      variant="default"
                      size="xs"
                      disabled={replay.isPending}
                      aria-label={`${deadLetters ? 'Replay' : 'Redeliver'} ${delivery.delivery_id}`}
                      onClick={() => replay.mutate([delivery.delivery_id])}
                    >
                      {deadLetters ? 'Replay' : 'Redeliver'}
                    </Button>
                  </Table.Td>
                </Table.Tr>
                {opened === delivery.delivery_id && (
                  <Table.Tr id={`attempts-${delivery.delivery_id}`}>
                    <Table.Td colSpan={7}>
                      <Attempts delivery={delivery} />
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <CursorPager
        pages={pages}
        label={what}
        lastId={rows.at(-1)?.delivery_id}
        full={rows.length === DELIVERIES_PAGE_SIZE && !deliveries.isPlaceholderData}
      />
    </Stack>
  );
}

function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) return <Text size="sm">No attempt yet.</Text>;
  return (
    <Table data-testid="attempts-table">
      <Table.Caption>{`Attempts of ${delivery.delivery_id}${delivery.next_attempt_at ? `; next at ${new Date(delivery.next_attempt_at).toLocaleString()}` : ''}`}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">#</Table.Th>
          <Table.Th scope="col">At</Table.Th>
          <Table.Th scope="col">Status code</Table.Th>
          <Table.Th scope="col">Latency (ms)</Table.Th>
          <Table.Th scope="col">Error</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {delivery.attempts.map((attempt) => (
          <Table.Tr key={attempt.attempt} data-testid="attempt-row">
            <Table.Td>{attempt.attempt}</Table.Td>
            <Table.Td>{new Date(attempt.attempted_at).toLocaleString()}</Table.Td>
            <Table.Td>{attempt.status_code ?? 'no answer'}</Table.Td>
            <Table.Td>{attempt.latency_ms}</Table.Td>
            <Table.Td>{attempt.error ?? ''}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function DeliveryFilters({ search }: { search: WebhooksSearch }) {
  const navigate = route.useNavigate();
  const [status, setStatus] = useState<string>(search.status ?? '');
  const [requestId, setRequestId] = useState(search.request_id ?? '');
  const deadLetters = search.tab === 'dead-letters';
  const apply = (event: FormEvent) => {
    event.preventDefault();
    void navigate({
      search: {
        ...(search.tab && { tab: search.tab }),
        ...(!deadLetters && status !== '' && { status: status as DeliveryStatus }),
        ...(requestId.trim() !== '' && { request_id: requestId.trim() }),
      },
    });
  };
  return (
    <form onSubmit={apply} aria-label={deadLetters ? 'Filter dead letters' : 'Filter deliveries'}>
      <Group align="end" wrap="wrap">
        {!deadLetters && (
          <NativeSelect
            label="Delivery status"
            value={status}
            onChange={(event) => setStatus(event.currentTarget.value)}
            data={[{ value: '', label: 'Any' }, ...DELIVERY_STATUSES.map((value) => ({ value, label: value }))]}
          />
        )}
        <TextInput
          label="Request id"
          description="req_ and 32 hex digits"
          value={requestId}
          onChange={(event) => setRequestId(event.currentTarget.value)}
        />
        <Button type="submit">Apply filters</Button>
      </Group>
    </form>
  );
}

interface SecretOwner {
  /** What the rotate route's path names: a deployment's name or an agent's id. */
  kind: 'prompt' | 'workflow' | 'agent';
  id: string;
  label: string;
}

interface ShownSecret {
  webhook_secret: string;
  previous_secret_expires_at: string | null;
}

const ROTATE_PATHS: Record<SecretOwner['kind'], string> = {
  prompt: '/v1/private/prompts',
  workflow: '/v1/private/workflows',
  agent: '/v1/private/agents',
};

function Secrets() {
  const { key } = useSession();
  const agentsPath = useWorkspacePath()('agents');
  // One query per kind: an owner service that does not answer shows its error, the others still list.
  const lists = [
    useQuery({
      queryKey: ['webhook-secret-owners', 'prompt'],
      queryFn: ({ signal }) =>
        apiGet<{ prompts: Array<{ deployment: string }> }>(key ?? '', '/v1/private/prompts', signal).then((answer) =>
          answer.prompts.map((item): SecretOwner => ({ kind: 'prompt', id: item.deployment, label: item.deployment })),
        ),
      enabled: key !== null,
    }),
    useQuery({
      queryKey: ['webhook-secret-owners', 'workflow'],
      queryFn: ({ signal }) =>
        apiGet<{ workflows: Array<{ deployment: string }> }>(key ?? '', '/v1/private/workflows', signal).then((answer) =>
          answer.workflows.map((item): SecretOwner => ({ kind: 'workflow', id: item.deployment, label: item.deployment })),
        ),
      enabled: key !== null,
    }),
    useQuery({
      queryKey: ['webhook-secret-owners', 'agent', agentsPath],
      queryFn: ({ signal }) =>
        apiGet<{ agents: Array<{ id: string; name: string }> }>(key ?? '', agentsPath, signal).then((answer) =>
          answer.agents.map((item): SecretOwner => ({ kind: 'agent', id: item.id, label: item.name })),
        ),
      enabled: key !== null,
    }),
  ];
  const owners = lists.flatMap((list) => list.data ?? []);
  const pending = lists.some((list) => list.isPending);
  const [rotating, setRotating] = useState<SecretOwner | null>(null);
  return (
    <Stack>
      <Text size="sm">
        The secrets that sign this workspace&apos;s callbacks and authenticate its webhook triggers. Rotating makes a new one, shown once
        here; during the overlap the previous secret keeps working too.
      </Text>
      {lists.map((list, index) => list.isError && <ApiErrorAlert key={index} error={list.error} />)}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Webhook secrets table' }}>
        <Table striped data-testid="secrets-table">
          <Table.Caption>{pending ? 'Loading…' : `${owners.length} owner(s) of a webhook secret`}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Kind</Table.Th>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Secret</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {owners.map((owner) => (
              <Table.Tr key={`${owner.kind}:${owner.id}`} data-testid="secret-row">
                <Table.Td>{owner.kind}</Table.Td>
                <Table.Td>{owner.label}</Table.Td>
                <Table.Td>
                  <Button
                    variant="default"
                    size="xs"
                    aria-label={`Rotate the secret of ${owner.kind} ${owner.label}`}
                    onClick={() => setRotating(owner)}
                  >
                    Rotate…
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      {rotating && <RotateModal owner={rotating} onClose={() => setRotating(null)} />}
    </Stack>
  );
}

/** Confirms a rotation, then shows the new secret this once (never in a URL, a log or the query cache). */
function RotateModal({ owner, onClose }: { owner: SecretOwner; onClose: () => void }) {
  const { key } = useSession();
  const [overlap, setOverlap] = useState<number | string>(0);
  const rotate = useMutation({
    mutationFn: () =>
      apiRequest<{ webhook_secret: ShownSecret }>(
        key ?? '',
        'POST',
        `${ROTATE_PATHS[owner.kind]}/${encodeURIComponent(owner.id)}/webhook_secret/rotate`,
        { overlap_seconds: typeof overlap === 'number' ? overlap : 0 },
      ).then((answer) => answer.webhook_secret),
  });
  const secret = rotate.data;
  return (
    <Modal opened onClose={onClose} title={`Rotate the webhook secret of ${owner.kind} ${owner.label}`} size="lg">
      {secret ? (
        <Stack>
          <Text size="sm">The new secret, shown this once: copy it now.</Text>
          <Code block data-testid="new-secret">
            {secret.webhook_secret}
          </Code>
          <Text size="sm">
            {secret.previous_secret_expires_at
              ? `The previous secret keeps working until ${new Date(secret.previous_secret_expires_at).toLocaleString()}.`
              : 'The previous secret no longer works.'}
          </Text>
          <Group>
            <CopyButton value={secret.webhook_secret}>
              {({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copied' : 'Copy the secret'}</Button>}
            </CopyButton>
            <Button variant="default" onClick={onClose}>
              Done
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack>
          <Text size="sm">
            Senders using the current secret must change to the new one. With no overlap the current secret stops working at once.
          </Text>
          <NumberInput
            label="Overlap (seconds)"
            description="How long the previous secret keeps working (0 to 2,592,000)"
            min={0}
            max={2_592_000}
            value={overlap}
            onChange={setOverlap}
          />
          {rotate.isError && <ApiErrorAlert error={rotate.error} />}
          <Group>
            <Button color="red.9" loading={rotate.isPending} onClick={() => rotate.mutate()}>
              Rotate the secret
            </Button>
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
