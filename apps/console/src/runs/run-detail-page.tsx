import { Anchor, Badge, Box, Button, Card, Code, Group, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { apiGet, apiRequest, apiStream } from '../api/api-client';
import { ApiErrorAlert } from '../api/api-error-alert';
import { listDeliveries, redeliver, type Delivery } from '../api/deliveries';
import { useSession } from '../auth/session';
import {
  durationText,
  isLive,
  modelAttemptsOf,
  shown,
  toolCallsOf,
  traceUrl,
  type ConsoleConfig,
  type ModelAttemptView,
  type RunLookup,
} from './run-detail';
import { statusColor } from './run-status';
import { waterfallLayout, type WaterfallStep } from './waterfall';

const route = getRouteApi('/runs/$requestId');

/** How often a run that has not ended, and a delivery still being sent, are read again (ms). */
const LIVE_REFRESH_MS = 1_000;

interface WorkflowRunView {
  id: string;
  run_status: string;
  start_inputs: Record<string, unknown>;
  output_content: string | null;
  error_message: string | null;
  started_at: string | null;
  ended_at: string | null;
}

interface WorkflowStepRecord extends WaterfallStep {
  inputs: unknown;
  output: unknown;
  error: string | null;
  error_code: string | null;
  tokens: number;
  model_attempts?: ModelAttemptView[];
}

/** The operator's settings (`/console/config.json`, no key): read once per page load. */
function useConsoleConfig() {
  return useQuery<ConsoleConfig>({
    queryKey: ['console-config'],
    queryFn: async ({ signal }) => {
      const response = await fetch('/console/config.json', { signal, headers: { accept: 'application/json' } });
      if (!response.ok) return { trace_url_template: null };
      return (await response.json()) as ConsoleConfig;
    },
    staleTime: Infinity,
  });
}

export function RunDetailPage() {
  const { requestId } = route.useParams();
  return <RunDetail key={requestId} requestId={requestId} />;
}

function RunDetail({ requestId }: { requestId: string }) {
  const { key } = useSession();
  const path = `/v1/public/requests/${encodeURIComponent(requestId)}`;
  const run = useQuery<RunLookup>({
    queryKey: ['run', requestId],
    queryFn: ({ signal }) => apiGet<RunLookup>(key ?? '', path, signal),
    enabled: key !== null,
    // Until the run ends, its record is read again; never after.
    refetchInterval: (query) => (query.state.data && isLive(query.state.data.status) ? LIVE_REFRESH_MS : false),
  });
  const lookup = run.data;
  return (
    <Stack>
      <Anchor component={Link} to="/runs" size="sm">
        ← All runs
      </Anchor>
      <Title order={1}>
        Run{' '}
        <Text span ff="monospace" fz="inherit" style={{ wordBreak: 'break-all' }}>
          {requestId}
        </Text>
      </Title>
      {run.isError && <ApiErrorAlert error={run.error} />}
      {run.isPending && <Text>Loading the run…</Text>}
      {lookup && (
        <>
          <Summary run={lookup} />
          <InputsAndOutput run={lookup} />
          <ModelAttempts data={lookup.data} />
          {lookup.request_type === 'workflow' && <WorkflowSteps requestId={requestId} live={isLive(lookup.status)} />}
          <ToolCalls data={lookup.data} />
          <Deliveries requestId={requestId} />
          <EventReplay requestId={requestId} />
        </>
      )}
    </Stack>
  );
}

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <Stack component="section" gap="xs" aria-label={title} data-testid={testId}>
      <Title order={2} size="h3">
        {title}
      </Title>
      {children}
    </Stack>
  );
}

/** A value as JSON in a scrollable block a keyboard can reach. */
function JsonBlock({ label, value }: { label: string; value: unknown }) {
  return (
    <Stack gap={2}>
      <Text size="xs" fw={600} aria-hidden>
        {label}
      </Text>
      <Code
        block
        role="region"
        aria-label={label}
        tabIndex={0}
        style={{ maxHeight: '20rem', overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
      >
        {shown(value)}
      </Code>
    </Stack>
  );
}

function Field({ name, children }: { name: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th scope="row" w="12rem">
        {name}
      </Table.Th>
      <Table.Td style={{ wordBreak: 'break-word' }}>{children}</Table.Td>
    </Table.Tr>
  );
}

const when = (instant: string | null) => (instant === null ? '' : new Date(instant).toLocaleString());

function Summary({ run }: { run: RunLookup }) {
  const config = useConsoleConfig();
  const link = traceUrl(config.data?.trace_url_template ?? null, run.trace_id);
  return (
    <Stack gap="xs">
      <Group>
        <Badge color={statusColor(run.status)} variant="outline" data-testid="run-status">
          {run.status}
        </Badge>
        {isLive(run.status) && <CancelButton requestId={run.request_id} />}
      </Group>
      <Table aria-label="The run">
        <Table.Tbody>
          <Field name="Type">{run.request_type}</Field>
          <Field name="Artifact">
            <Text span size="sm" ff="monospace">
              {run.requestable_type} {run.requestable_id}
            </Text>
          </Field>
          {run.version !== null && <Field name="Version">{`${run.version}${run.label ? ` (label ${run.label})` : ''}`}</Field>}
          <Field name="Generated">{when(run.generated_at)}</Field>
          <Field name="Started">{when(run.started_at)}</Field>
          <Field name="Ended">{when(run.ended_at)}</Field>
          <Field name="Cost (USD)">{run.cost_micros === null ? '' : (run.cost_micros / 1_000_000).toFixed(6)}</Field>
          {run.surface !== null && <Field name="Surface">{run.surface}</Field>}
          <Field name="Trace id">
            {run.trace_id === null ? (
              'none'
            ) : link === null ? (
              <Code data-testid="trace-id">{run.trace_id}</Code>
            ) : (
              <Anchor href={link} target="_blank" rel="noopener noreferrer" data-testid="trace-link">
                <Code>{run.trace_id}</Code> (open in the trace viewer)
              </Anchor>
            )}
          </Field>
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function CancelButton({ requestId }: { requestId: string }) {
  const { key } = useSession();
  const client = useQueryClient();
  const cancel = useMutation({
    mutationFn: () =>
      apiRequest<{ request_id: string; run_status: string }>(
        key ?? '',
        'POST',
        `/v1/public/requests/${encodeURIComponent(requestId)}/cancel`,
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: ['run', requestId] }),
  });
  return (
    <>
      <Button color="red.9" variant="outline" size="xs" loading={cancel.isPending} onClick={() => cancel.mutate()}>
        Cancel run
      </Button>
      <Text size="sm" role="status">
        {cancel.data ? `Cancel answered: ${cancel.data.run_status}` : ''}
      </Text>
      {cancel.isError && <ApiErrorAlert error={cancel.error} />}
    </>
  );
}

function InputsAndOutput({ run }: { run: RunLookup }) {
  const { key } = useSession();
  const workflow = useQuery<WorkflowRunView>({
    queryKey: ['workflow-run', run.request_id, run.status],
    queryFn: ({ signal }) =>
      apiGet<{ workflow_run: WorkflowRunView }>(key ?? '', `/v1/workflow_runs/${encodeURIComponent(run.request_id)}`, signal).then(
        (answer) => answer.workflow_run,
      ),
    enabled: key !== null && run.request_type === 'workflow',
  });
  return (
    <Section title="Inputs and output">
      {run.message !== null && <JsonBlock label="Last user message" value={run.message} />}
      {workflow.data && <JsonBlock label="Workflow inputs" value={workflow.data.start_inputs} />}
      {workflow.isError && <ApiErrorAlert error={workflow.error} />}
      {Object.keys(run.metadata).length > 0 && <JsonBlock label="Metadata" value={run.metadata} />}
      {run.data === null ? (
        <Text size="sm">{isLive(run.status) ? 'No output yet: the run has not ended.' : 'No output recorded.'}</Text>
      ) : (
        <JsonBlock label="Output" value={run.data} />
      )}
    </Section>
  );
}

function AttemptsTable({ attempts, label }: { attempts: ModelAttemptView[]; label: string }) {
  return (
    <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': label }}>
      <Table striped>
        <Table.Caption>{label}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">#</Table.Th>
            <Table.Th scope="col">Model</Table.Th>
            <Table.Th scope="col">Outcome</Table.Th>
            <Table.Th scope="col">Duration</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {attempts.map((attempt, index) => (
            <Table.Tr key={index} data-testid="model-attempt">
              <Table.Td>{index + 1}</Table.Td>
              <Table.Td>{attempt.model}</Table.Td>
              <Table.Td>
                {attempt.error_code === null
                  ? attempt.repair
                    ? 'answered (repair)'
                    : 'answered'
                  : `${attempt.error_code}${attempt.status ? ` (${attempt.status})` : ''}`}
              </Table.Td>
              <Table.Td>{durationText(attempt.duration_ms)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}

function ModelAttempts({ data }: { data: Record<string, unknown> | null }) {
  const attempts = modelAttemptsOf(data);
  if (attempts.length === 0) return null;
  return (
    <Section title="Model attempts">
      <AttemptsTable attempts={attempts} label="Model calls in order, fallbacks included" />
    </Section>
  );
}

function WorkflowSteps({ requestId, live }: { requestId: string; live: boolean }) {
  const { key } = useSession();
  const steps = useQuery<WorkflowStepRecord[]>({
    queryKey: ['workflow-steps', requestId],
    queryFn: ({ signal }) =>
      apiGet<{ steps: WorkflowStepRecord[] }>(key ?? '', `/v1/private/workflow_runs/${encodeURIComponent(requestId)}/steps`, signal).then(
        (answer) => answer.steps,
      ),
    enabled: key !== null,
    refetchInterval: live ? LIVE_REFRESH_MS : false,
  });
  const rows = steps.data ?? [];
  const layout = waterfallLayout(rows, null, Date.now());
  return (
    <Section title="Workflow steps" testId="waterfall">
      {steps.isError && <ApiErrorAlert error={steps.error} />}
      <Text size="sm">
        {rows.length} step record(s) in execution order, on a time axis of {durationText(layout.totalMs)}.
      </Text>
      <Box component="ol" aria-label="Waterfall of the workflow steps" p={0} m={0} style={{ listStyle: 'none' }}>
        {layout.bars.map((bar, index) => (
          <Box component="li" key={bar.key} data-testid="waterfall-bar" data-step={bar.label} mb={6}>
            <Group justify="space-between" gap="xs" wrap="nowrap">
              <Text size="sm" ff="monospace" truncate>
                {bar.label}{' '}
                <Text span size="xs">
                  ({rows[index].step_type})
                </Text>
              </Text>
              <Text size="xs">
                {bar.status} · +{durationText(bar.startMs) || '0 ms'} · {bar.durationMs === null ? 'running' : durationText(bar.durationMs)}
              </Text>
            </Group>
            <Box h={10} bg="gray.1" style={{ position: 'relative', borderRadius: 2 }} aria-hidden>
              <Box
                h={10}
                bg={bar.status === 'failed' ? 'red.8' : bar.status === 'running' ? 'blue.8' : 'teal.8'}
                style={{ position: 'absolute', left: `${bar.offsetPercent}%`, width: `${bar.widthPercent}%`, borderRadius: 2 }}
              />
            </Box>
          </Box>
        ))}
      </Box>
      {rows.map((step) => (
        <details key={step.step_key}>
          <summary>
            <Text span size="sm">
              Step {step.step_id}
              {step.iteration === null ? '' : ` #${step.iteration + 1}`}: inputs and output
            </Text>
          </summary>
          <Stack gap="xs" mt="xs">
            <JsonBlock label={`Inputs of step ${step.step_key}`} value={step.inputs} />
            <JsonBlock label={`Output of step ${step.step_key}`} value={step.error ?? step.output} />
            {step.model_attempts && step.model_attempts.length > 0 && (
              <AttemptsTable attempts={step.model_attempts} label={`Model calls of step ${step.step_key}`} />
            )}
          </Stack>
        </details>
      ))}
    </Section>
  );
}

function ToolCalls({ data }: { data: Record<string, unknown> | null }) {
  const calls = toolCallsOf(data);
  if (calls.length === 0) return null;
  return (
    <Section title="Tool calls">
      {calls.map((call, index) => (
        <Card key={index} withBorder padding="sm" data-testid="tool-call">
          <Text size="sm" fw={600}>
            {index + 1}. {call.tool_name} {call.duration_ms === undefined ? '' : `(${durationText(call.duration_ms)})`}
          </Text>
          <JsonBlock label={`Input of tool call ${index + 1}`} value={call.tool_input} />
          <JsonBlock label={`Observation of tool call ${index + 1}`} value={call.observation} />
        </Card>
      ))}
    </Section>
  );
}

function Deliveries({ requestId }: { requestId: string }) {
  const { key } = useSession();
  const client = useQueryClient();
  const deliveries = useQuery<Delivery[]>({
    queryKey: ['deliveries', requestId],
    queryFn: ({ signal }) => listDeliveries(key ?? '', { request_id: requestId }, signal),
    enabled: key !== null,
    // A delivery still being sent (or sent again) is read again until it settles.
    refetchInterval: (query) => (query.state.data?.some((delivery) => delivery.status === 'pending') ? LIVE_REFRESH_MS : false),
  });
  const again = useMutation({
    mutationFn: (deliveryId: string) => redeliver(key ?? '', deliveryId),
    onSuccess: () => client.invalidateQueries({ queryKey: ['deliveries', requestId] }),
  });
  const rows = deliveries.data ?? [];
  return (
    <Section title="Callback deliveries" testId="deliveries">
      {deliveries.isError && <ApiErrorAlert error={deliveries.error} />}
      {again.isError && <ApiErrorAlert error={again.error} />}
      {deliveries.isSuccess && rows.length === 0 && <Text size="sm">No callback for this run.</Text>}
      {rows.map((delivery) => (
        <Card key={delivery.delivery_id} withBorder padding="sm" data-testid="delivery">
          <Group justify="space-between" wrap="wrap">
            <Stack gap={2} style={{ minWidth: 0 }}>
              <Text size="sm" fw={600}>
                {delivery.event_type}{' '}
                <Badge
                  variant="outline"
                  color={delivery.status === 'succeeded' ? 'teal.9' : delivery.status === 'pending' ? 'blue.9' : 'red.9'}
                >
                  {delivery.status}
                </Badge>
              </Text>
              <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                {delivery.url}
              </Text>
            </Stack>
            <Button
              size="xs"
              variant="default"
              loading={again.isPending && again.variables === delivery.delivery_id}
              onClick={() => again.mutate(delivery.delivery_id)}
              aria-label={`Redeliver ${delivery.event_type} to ${delivery.url}`}
            >
              Redeliver
            </Button>
          </Group>
          <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': `Attempts of ${delivery.delivery_id}` }}>
            <Table>
              <Table.Caption>{delivery.attempts.length} attempt(s)</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">#</Table.Th>
                  <Table.Th scope="col">At</Table.Th>
                  <Table.Th scope="col">HTTP status</Table.Th>
                  <Table.Th scope="col">Latency</Table.Th>
                  <Table.Th scope="col">Error</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {delivery.attempts.map((attempt, index) => (
                  <Table.Tr key={index} data-testid="delivery-attempt">
                    <Table.Td>{attempt.attempt}</Table.Td>
                    <Table.Td>{new Date(attempt.attempted_at).toLocaleString()}</Table.Td>
                    <Table.Td>{attempt.status_code ?? 'none'}</Table.Td>
                    <Table.Td>{durationText(attempt.latency_ms)}</Table.Td>
                    <Table.Td>{attempt.error ?? ''}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        </Card>
      ))}
    </Section>
  );
}

interface ReplayedEvent {
  event: string;
  data: unknown;
}

function EventReplay({ requestId }: { requestId: string }) {
  const { key } = useSession();
  const [events, setEvents] = useState<ReplayedEvent[]>([]);
  const [state, setState] = useState<'idle' | 'streaming' | 'ended'>('idle');
  const [failure, setFailure] = useState<unknown>(null);
  const stop = useRef<AbortController | null>(null);
  useEffect(() => () => stop.current?.abort(), []);
  const start = async () => {
    stop.current?.abort();
    const controller = new AbortController();
    stop.current = controller;
    setEvents([]);
    setFailure(null);
    setState('streaming');
    try {
      for await (const event of apiStream(
        key ?? '',
        'GET',
        `/v1/public/requests/${encodeURIComponent(requestId)}/events`,
        undefined,
        controller.signal,
      ))
        setEvents((list) => [...list, event]);
      setState('ended');
    } catch (error) {
      if (controller.signal.aborted) return;
      setFailure(error);
      setState('idle');
    }
  };
  return (
    <Section title="Events">
      <Text size="sm">A background run keeps its events: replay them from the start, then follow the run live until it ends.</Text>
      <Group>
        <Button variant="default" size="xs" onClick={() => void start()} loading={state === 'streaming'}>
          Replay events
        </Button>
        <Text size="sm" role="status">
          {state === 'ended' ? `Replay ended after ${events.length} event(s).` : ''}
        </Text>
      </Group>
      {failure !== null && <ApiErrorAlert error={failure} />}
      {events.length > 0 && (
        <Box component="ol" aria-label="Replayed events" pl="lg" m={0}>
          {events.map((event, index) => (
            <li key={index} data-testid="run-event">
              <Text size="sm" ff="monospace" style={{ wordBreak: 'break-word' }}>
                {event.event}: {typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}
              </Text>
            </li>
          ))}
        </Box>
      )}
    </Section>
  );
}
