import type { AgentRecord, AppliedDeployment } from '@waggle/contracts';
import {
  CallbackReceiver,
  cliJson,
  cliJsonLines,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  readSseEvents,
  spawnApp,
  waitUntilLive,
  type AppProcess,
  type SseEvent,
} from '@waggle/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WORDS = Array.from({ length: 12 }, (_, index) => `w${index}`).join(' ');

const PROMPTS = `
prompts:
  - deployment: narrator
    variants:
      - name: default
        model: fake-bg
        messages:
          - { role: user, content: "{{ question }}" }
`;

interface RequestLookup {
  status: string;
  data: Record<string, unknown> | null;
}

/**
 * Background runs and resumable streams (decisions D40) through the whole stack: the gateway
 * numbers every event, a background stream outlives its client and is replayed from Redis by
 * `GET /v1/public/requests/{id}/events`, and a background invoke without streaming answers 202
 * and runs from the durable queues. The fake provider's gates hold a run mid-answer, so each
 * test knows the run is still going when it acts.
 */
describe('background runs and resumable streams', () => {
  const fake = new FakeProviderServer({ response: WORDS });
  const receiver = new CallbackReceiver();
  const apps: AppProcess[] = [];
  let gateway: string;
  let key: string;
  let otherKey: string;
  let workspaceId: string;
  let agent: AgentRecord;
  let receiverUrl: string;
  let redis: Redis;

  const post = (path: string, body: unknown, apiKey = key, signal?: AbortSignal) =>
    fetch(`${gateway}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  /** A stream read as a client that leaves after some events: `leave` closes its connection. */
  const leavingStream = async (path: string, body: unknown) => {
    const connection = new AbortController();
    const events = readSseEvents(await post(path, body, key, connection.signal));
    return {
      events,
      leave: async () => {
        connection.abort();
        await events.return(undefined).catch(() => undefined);
      },
    };
  };
  const get = (path: string, headers: Record<string, string> = {}, apiKey = key, signal?: AbortSignal) =>
    fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${apiKey}`, ...headers }, signal });
  const promptBody = (extra: Record<string, unknown>) => ({
    deployment: 'narrator',
    variant: 'default',
    inputs: { question: 'Go' },
    ...extra,
  });
  const lookup = async (requestId: string): Promise<RequestLookup> =>
    (await (await get(`/v1/public/requests/${requestId}`)).json()) as RequestLookup;

  /** Every event to the end of the stream. */
  const readAll = async (response: Response): Promise<SseEvent[]> => {
    const events: SseEvent[] = [];
    for await (const event of readSseEvents(response)) events.push(event);
    return events;
  };
  /** The first `count` events of a stream. */
  const readSome = async (events: AsyncGenerator<SseEvent>, count: number): Promise<SseEvent[]> => {
    const read: SseEvent[] = [];
    while (read.length < count) {
      const next = await events.next();
      if (next.done) throw new Error(`the stream ended after ${read.length} events`);
      read.push(next.value);
    }
    return read;
  };
  const requestIdOf = (event: SseEvent) => (JSON.parse(event.data) as { request_id: string }).request_id;
  const ids = (events: SseEvent[]) => events.map((event) => event.id);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => String(from + index));
  /** What a client makes of a run's events, without what differs from run to run (its id, its duration). */
  const content = (events: SseEvent[]) =>
    events.map((event) => {
      if (event.data === '[DONE]') return event.data;
      const { type, response } = JSON.parse(event.data) as { type: string; response?: string };
      return `${type}:${response ?? ''}`;
    });

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    receiverUrl = await receiver.start();
    fake.setModel('fake-bg', { tokenDelayMs: 20 });
    fake.setModel('fake-bg-agent', { tokenDelayMs: 20 });
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    apps.push(
      spawnApp('catalog', await freePort(), env),
      spawnApp('invocation', await freePort(), env),
      spawnApp('agent', await freePort(), env),
      spawnApp('callback-dispatcher', await freePort(), { LOG_LEVEL: 'warn', CALLBACK_URL_ALLOWLIST: '127.0.0.1' }),
    );
    const gatewayApp = spawnApp('gateway', await freePort(), { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    apps.push(gatewayApp);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;
    await loadCatalogWithFakeModels('2099.23.1', [fakeModel('fake-bg'), fakeModel('fake-bg-agent', { tool_calling: true })]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      'e2e background',
      '--plan',
      'enterprise',
    ]);
    key = created.api_key;
    workspaceId = created.workspace_id;
    otherKey = (await cliJson<{ api_key: string }>(['workspace', 'create', '--name', 'e2e background other'])).api_key;
    const prompts = join(mkdtempSync(join(tmpdir(), 'waggle-background-')), 'prompts.yaml');
    writeFileSync(prompts, PROMPTS);
    await cliJson<AppliedDeployment[]>(['apply', '-f', prompts, '--workspace', workspaceId]);
    const createdAgent = await post(`/v1/public/workspaces/${workspaceId}/agents`, {
      agent: { model_type: 'llm', name: 'Narrator', llm_model: 'fake-bg-agent' },
    });
    agent = ((await createdAgent.json()) as { agent: AgentRecord }).agent;
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await Promise.all([fake.stop(), receiver.stop()]);
    redis?.disconnect();
  });

  it('numbers every event of an ordinary prompt and agent stream 1..n; [DONE] has no id', async () => {
    for (const [path, body] of [
      ['/v1/prompt/invoke', promptBody({ streaming: true })],
      ['/v1/agent/invoke', { agent: agent.id, message: 'Go', streaming: true }],
    ] as const) {
      const events = await readAll(await post(path, body));
      expect(events.length).toBeGreaterThan(3);
      expect(ids(events.slice(0, -1))).toEqual(range(1, events.length - 1));
      expect(events.at(-1)).toEqual({ id: undefined, data: '[DONE]' });
      expect(JSON.parse(events[events.length - 2].data)).toMatchObject({ type: 'usage' });
    }
  });

  let resumedRun: { requestId: string; all: SseEvent[] };

  it('keeps a background prompt stream going after its client leaves; a resume follows it live and yields every event once', async () => {
    const gate = fake.gate('fake-bg', 6);
    const live = await leavingStream('/v1/prompt/invoke', promptBody({ streaming: true, background: true }));
    const first = await readSome(live.events, 3);
    await live.leave();
    const requestId = requestIdOf(first[0]);
    expect(ids(first)).toEqual(['1', '2', '3']);

    // The provider is held after 6 fragments: the run is provably still going.
    const held = await gate.reached;
    const resumed = readSseEvents(await get(`/v1/public/requests/${requestId}/events`, { 'last-event-id': '3' }));
    const beforeRelease = await readSome(resumed, 3);
    expect(ids(beforeRelease)).toEqual(['4', '5', '6']);
    expect((await lookup(requestId)).status).toBe('running');
    gate.release();
    const rest: SseEvent[] = [];
    for await (const event of resumed) rest.push(event);
    const afterLeaving = [...beforeRelease, ...rest];

    // Every remaining event exactly once, in order, then [DONE].
    expect(afterLeaving.at(-1)).toEqual({ id: undefined, data: '[DONE]' });
    const resumedEvents = afterLeaving.slice(0, -1);
    expect(ids(resumedEvents)).toEqual(range(4, resumedEvents.length + 3));
    expect(JSON.parse(resumedEvents[resumedEvents.length - 1].data)).toMatchObject({ type: 'usage', request_id: requestId });

    // A replay from the start numbers each event as the live stream did, with the same data.
    const all = await readAll(await get(`/v1/public/requests/${requestId}/events`));
    expect(all).toEqual([...first, ...afterLeaving]);
    resumedRun = { requestId, all };

    // The same events as a client that never left gets.
    const stayed = await readAll(await post('/v1/prompt/invoke', promptBody({ streaming: true, background: true })));
    expect(content(all)).toEqual(content(stayed));
    expect(ids(stayed.slice(0, -1))).toEqual(ids(all.slice(0, -1)));

    await expectEventually(async () => expect((await lookup(requestId)).status).toBe('completed'));
    expect(fake.requests.find((record) => record.id === held.id)?.aborted).toBe(false);
  });

  it('resumes after ?after=, and a client that saw the last event but not [DONE] gets [DONE] alone', async () => {
    const { requestId, all } = resumedRun;
    const lastSeq = all.length - 1;
    expect(await readAll(await get(`/v1/public/requests/${requestId}/events?after=5`))).toEqual(all.slice(5));
    expect(await readAll(await get(`/v1/public/requests/${requestId}/events`, { 'last-event-id': String(lastSeq) }))).toEqual([
      { id: undefined, data: '[DONE]' },
    ]);
    // Kept until 1 h after the run ended.
    const ttl = await redis.pttl(`waggle:run-events:${requestId}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
  });

  it('reads the same run with the operator CLI: request show, request events after a seq, request cancel of an ended run', async () => {
    const { requestId, all } = resumedRun;
    expect(await cliJson(['request', 'show', workspaceId, requestId])).toMatchObject({ request_id: requestId, status: 'completed' });
    const events = await cliJsonLines<{ id: number; event: unknown }>(['request', 'events', workspaceId, requestId, '--after', '5']);
    expect(events.map(({ id, event }) => ({ id: String(id), data: JSON.stringify(event) }))).toEqual(all.slice(5, -1));
    // Ended runs are left as they are.
    expect(await cliJson(['request', 'cancel', workspaceId, requestId])).toEqual({ request_id: requestId, run_status: 'completed' });
    // Another workspace's id is the lookup's 404 (the CLI exits non-zero).
    await expect(cliJson(['request', 'events', randomUUID(), requestId])).rejects.toThrow(/Request not found/);
  });

  it('keeps a background agent stream going after its client leaves: the ledger ends completed', async () => {
    const gate = fake.gate('fake-bg-agent', 2);
    const live = await leavingStream('/v1/agent/invoke', { agent: agent.id, message: 'Go', streaming: true, background: true });
    const [first] = await readSome(live.events, 1);
    await live.leave();
    const held = await gate.reached;
    gate.release();
    const requestId = requestIdOf(first);
    await expectEventually(async () => expect((await lookup(requestId)).status).toBe('completed'));
    expect((await lookup(requestId)).data).toMatchObject({ response: WORDS });
    expect(fake.requests.find((record) => record.id === held.id)?.aborted).toBe(false);
  });

  it('still cancels an ordinary stream whose client leaves: provider request aborted, ledger cancelled', async () => {
    const gate = fake.gate('fake-bg', 2);
    const live = await leavingStream('/v1/prompt/invoke', promptBody({ streaming: true, inputs: { question: 'Leaving' } }));
    const [first] = await readSome(live.events, 1);
    await live.leave();
    await fake.waitForRequest((record) => JSON.stringify(record.body).includes('Leaving') && record.aborted);
    await expectEventually(async () => expect((await lookup(requestIdOf(first))).status).toBe('cancelled'));
    gate.release();
  });

  it('answers a background prompt invoke without streaming 202 at once; the ledger ends completed with the answer', async () => {
    const response = await post('/v1/prompt/invoke', promptBody({ background: true }));
    expect(response.status).toBe(202);
    const body = (await response.json()) as { request_id: string; run_status: string };
    expect(Object.keys(body).sort()).toEqual(['request_id', 'run_status']);
    expect(body.request_id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(['queued', 'running']).toContain(body.run_status);
    await expectEventually(async () => {
      const run = await lookup(body.request_id);
      expect(run.status).toBe('completed');
      expect(run.data).toMatchObject({ response: WORDS });
    });
  });

  it('refuses a background invoke as an invoke would, before accepting it', async () => {
    const response = await post('/v1/prompt/invoke', promptBody({ background: true, deployment: 'nowhere' }));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error_code: 'resource_not_found' });
  });

  it('delivers a background agent invoke to async.callback_url', async () => {
    const response = await post('/v1/agent/invoke', {
      agent: agent.id,
      message: 'Go',
      background: true,
      async: { callback_url: `${receiverUrl}/agent-background` },
    });
    expect(response.status).toBe(202);
    const { request_id: requestId } = (await response.json()) as { request_id: string };
    await expectEventually(() => expect(receiver.on('/agent-background')).toHaveLength(1), { timeoutMs: 15_000 });
    expect(JSON.parse(receiver.on('/agent-background')[0].body)).toMatchObject({
      event_type: 'agent.completed',
      request_id: requestId,
      data: { response: WORDS },
    });
    expect((await lookup(requestId)).status).toBe('completed');
  });

  it('refuses async.callback_url on an agent invoke that is not a background one', async () => {
    const response = await post('/v1/agent/invoke', { agent: agent.id, message: 'Go', async: { callback_url: `${receiverUrl}/never` } });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error_code: 'validation_error' });
  });

  describe('GET /v1/public/requests/{id}/events refusals', () => {
    it("answers another workspace's id and an unknown id exactly like the lookup", async () => {
      for (const response of [
        await get(`/v1/public/requests/${resumedRun.requestId}/events`, {}, otherKey),
        await get(`/v1/public/requests/req_0190f5a1b2c37d4e8f90a1b2c3d4e5f6/events`),
      ]) {
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({
          error: 'Request not found',
          message: 'Request not found',
          error_code: 'not_found',
          code: 'not_found',
        });
      }
    });

    it('answers a run of this workspace without kept events with its own 404', async () => {
      const events = await readAll(await post('/v1/prompt/invoke', promptBody({ streaming: true })));
      const requestId = requestIdOf(events[0]);
      await expectEventually(async () => expect((await lookup(requestId)).status).toBe('completed'));
      const response = await get(`/v1/public/requests/${requestId}/events`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({
        error: 'No events of this request are kept: only a background stream keeps them, until 1 hour after it ends',
        error_code: 'not_found',
      });
    });

    it.each([
      [{ 'last-event-id': 'abc' }, ''],
      [{ 'last-event-id': '-1' }, ''],
      [{}, '?after=1.5'],
    ])('answers a bad resume point %j%s with 422 validation_error', async (headers, query) => {
      const response = await get(`/v1/public/requests/${resumedRun.requestId}/events${query}`, headers);
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ error_code: 'validation_error' });
    });
  });
});
