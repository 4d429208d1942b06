import { CLAIM_BUCKETS, QueueNames, type AppliedDeployment, type LedgerRecord, type RequestListItem } from '@waggle/contracts';
import { BaseEnv, loadConfig, newRequestId, NatsRpcClient } from '@waggle/platform';
import { LedgerPublisher } from '@waggle/runs';
import {
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import { deliveryIdFor } from '@waggle/webhooks';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_REDIS_URL } from '../setup/test-env';

function connectionOf(client: NatsRpcClient) {
  const connection = client.connection();
  if (!connection) throw new Error('the test client is not connected');
  return connection;
}

const PROMPTS = `
prompts:
  - deployment: ledgered
    variants:
      - name: default
        model: fake-ledger-chat
        messages:
          - { role: user, content: "{{ question }}" }
`;

/**
 * One request ledger for every run kind: services publish run records to a durable JetStream
 * stream and the ledger's owner (invocation) writes them, so a record published while the owner
 * is down is there once it is back, and lookups find prompt, agent and workflow runs alike.
 */
describe('the request ledger', () => {
  const fake = new FakeProviderServer();
  const apps: Record<'catalog' | 'invocation' | 'gateway', AppProcess> = {} as never;
  const rpc = new NatsRpcClient(loadConfig(BaseEnv), 'ledger-e2e');
  let gateway: string;
  let key: string;
  let workspaceId: string;
  let ledgered: AppliedDeployment;
  /** Callbacks this spec queued with no dispatcher running: removed so no later spec's dispatcher sends them. */
  const queuedCallbacks: string[] = [];

  const authorized = { headers: { authorization: '' } };
  const get = (path: string) => fetch(`${gateway}${path}`, authorized);

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key' };
    apps.catalog = spawnApp('catalog', await freePort(), env);
    apps.invocation = spawnApp('invocation', await freePort(), env);
    apps.gateway = spawnApp('gateway', await freePort(), { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    await Promise.all(Object.values(apps).map((app) => waitUntilLive(app)));
    gateway = apps.gateway.baseUrl;
    await rpc.connect();
    await loadCatalogWithFakeModels('2099.6.1', [fakeModel('fake-ledger-chat', { reasoning: false })]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e ledger']);
    key = created.api_key;
    workspaceId = created.workspace_id;
    authorized.headers.authorization = `Bearer ${key}`;
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-ledger-')), 'prompts.yaml');
    writeFileSync(file, PROMPTS);
    [ledgered] = await cliJson<AppliedDeployment[]>(['apply', '-f', file, '--workspace', workspaceId]);
  });

  afterAll(async () => {
    const connection = new Redis(TEST_REDIS_URL);
    const callbacks = new Queue(QueueNames.callbacks, { connection });
    await Promise.all(queuedCallbacks.map((deliveryId) => callbacks.remove(deliveryId)));
    await callbacks.close();
    connection.disconnect();
    await cliJson(['catalog', 'load', '--force']);
    await rpc.close();
    await Promise.all(Object.values(apps).map((app) => app.stop()));
    await fake.stop();
  });

  it('keeps records published while its owner is stopped, and answers them once it is back', async () => {
    expect(await apps.invocation.stop()).toBe(0);

    // A webhook trigger accepted while the owner is down: the gateway records the run as it accepts it.
    const variantId = ledgered.variants[0].variant_id;
    const trigger = await fetch(`${gateway}/v1/prompt/webhooks/${ledgered.prompt_endpoint_id}/variants/${variantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-webhook-secret': ledgered.webhook_secret },
      body: JSON.stringify({
        inputs: { question: 'while you were out' },
        metadata: { source: 'trigger' },
        user: 'trigger-user',
        async: { callback_url: 'http://127.0.0.1:9/unused' },
      }),
    });
    expect(trigger.status).toBe(202);
    const { request_id: triggeredId } = (await trigger.json()) as { request_id: string };
    queuedCallbacks.push(deliveryIdFor(triggeredId));

    // An agent run, published the way the agent service publishes its runs (the shared publisher).
    const agentRun: LedgerRecord = {
      request_id: newRequestId(),
      workspace_id: workspaceId,
      request_type: 'agent',
      requestable_type: 'agent',
      requestable_id: randomUUID(),
      deployment: null,
      variant: null,
      variant_id: null,
      version_id: null,
      version: null,
      model: 'fake-ledger-chat',
      status: 'completed',
      message: 'What is on my calendar?',
      metadata: { channel: 'slack', attempt: 2 },
      user: 'agent-user',
      generated_at: new Date().toISOString(),
      started_at: new Date().toISOString(),
      ended_at: new Date().toISOString(),
      duration_ms: 12,
      usage: { total_tokens: 7 },
      data: { response: 'Nothing today.' },
    };
    const publisher = new LedgerPublisher(rpc);
    publisher.save(agentRun);
    await publisher.flush();
    expect(publisher.pending).toBe(0);
    // Nobody can have written it yet: the owner is stopped.
    expect(apps.invocation.child.exitCode).toBe(0);

    apps.invocation = spawnApp('invocation', apps.invocation.port, apps.invocation.env);
    await waitUntilLive(apps.invocation);

    const agentLookup = await get(`/v1/public/requests/${agentRun.request_id}`);
    expect(agentLookup.status).toBe(200);
    expect(await agentLookup.json()).toEqual({
      request_id: agentRun.request_id,
      status: 'completed',
      request_type: 'agent',
      requestable_type: 'agent',
      requestable_id: agentRun.requestable_id,
      message: 'What is on my calendar?',
      metadata: { channel: 'slack', attempt: 2 },
      generated_at: agentRun.generated_at,
      started_at: agentRun.started_at,
      ended_at: agentRun.ended_at,
      data: { response: 'Nothing today.' },
      // Published outside any trace.
      trace_id: null,
      // Not started by the OpenAI-compatible surface.
      surface: null,
      // Published without a cost (usage governance: null for a run that priced no model call).
      cost_micros: null,
      // An agent run has no version, and named no label.
      version: null,
      label: null,
    });

    // The trigger accepted meanwhile is in the ledger too, and runs to completion now.
    await expectEventually(async () => {
      const lookup = await get(`/v1/public/requests/${triggeredId}`);
      expect(lookup.status).toBe(200);
      expect(await lookup.json()).toMatchObject({
        request_id: triggeredId,
        request_type: 'prompt',
        status: 'completed',
        metadata: { source: 'trigger' },
        data: { response: 'Echo: while you were out' },
      });
    });

    // Both user labels filter the private listing.
    const byUser = async (user: string) =>
      ((await (await get(`/v1/private/requests?user=${user}`)).json()) as { requests: RequestListItem[] }).requests;
    expect(await byUser('agent-user')).toEqual([
      expect.objectContaining({ request_id: agentRun.request_id, request_type: 'agent', user: 'agent-user' }),
    ]);
    expect(await byUser('trigger-user')).toEqual([
      expect.objectContaining({ request_id: triggeredId, request_type: 'prompt', user: 'trigger-user' }),
    ]);
  });

  it('stores a run whose record is larger than a NATS message, through the stream and across its owner restarting', async () => {
    const startedAt = new Date();
    // 3 MiB in, and the fake provider echoes it back: a record of more than 6 MiB, where NATS carries 1 MiB.
    const question = `${'ü'.repeat(1024 * 1024)}${'q'.repeat(1024 * 1024)}`;
    const run = await fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: { ...authorized.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ deployment: 'ledgered', variant: 'default', inputs: { question } }),
    });
    expect(run.status).toBe(200);
    const { request_id: requestId, response } = (await run.json()) as { request_id: string; response: string };
    expect(response).toBe(`Echo: ${question}`);

    // Stopped and started again, the owner can only answer from its table: what the stream delivered.
    expect(await apps.invocation.stop()).toBe(0);
    apps.invocation = spawnApp('invocation', apps.invocation.port, apps.invocation.env);
    await waitUntilLive(apps.invocation);
    const lookup = await get(`/v1/public/requests/${requestId}`);
    expect(lookup.status).toBe(200);
    expect(await lookup.json()).toMatchObject({
      request_id: requestId,
      status: 'completed',
      message: question,
      data: { response: `Echo: ${question}` },
    });

    // The batch's stored payload is deleted once it is written.
    const store = await connectionOf(rpc).jetstream().views.os(CLAIM_BUCKETS.ledger.name);
    await expectEventually(async () => expect((await store.list()).filter((info) => new Date(info.mtime) >= startedAt)).toEqual([]));
  });

  it('filters the private listing by model, API key, metadata pair and cost range, and answers 422 for a bad filter', async () => {
    // A real run: its record names the model that answered and the key that started it.
    const invoked = await fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: { ...authorized.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ deployment: 'ledgered', variant: 'default', inputs: { question: 'filters' }, metadata: { ticket: 'T-9' } }),
    });
    expect(invoked.status).toBe(200);
    const { request_id: invokedId } = (await invoked.json()) as { request_id: string };
    const workspace = (await (await get('/v1/private/workspace')).json()) as { api_key: { id: string } };

    // Runs with known models, keys and costs, published as the services publish theirs.
    const otherKey = randomUUID();
    const record = (model: string | null, cost: number | null, metadata: LedgerRecord['metadata'], apiKey: string): LedgerRecord => ({
      request_id: newRequestId(),
      workspace_id: workspaceId,
      request_type: 'agent',
      requestable_type: 'agent',
      requestable_id: randomUUID(),
      deployment: null,
      variant: null,
      variant_id: null,
      version_id: null,
      version: null,
      model,
      status: 'completed',
      message: 'filtered',
      metadata,
      user: 'filter-user',
      generated_at: new Date().toISOString(),
      started_at: new Date().toISOString(),
      ended_at: new Date().toISOString(),
      duration_ms: 1,
      usage: null,
      data: null,
      cost_micros: cost,
      api_key_id: apiKey,
    });
    const cheap = record('fake-filter-a', 1_000, { ticket: 'T-1', priority: 2 }, otherKey);
    const dear = record('fake-filter-a', 250_000, { ticket: 'T-2', priority: 5 }, otherKey);
    const other = record('fake-filter-b', 50_000, { ticket: 'T-1', urgent: true }, workspace.api_key.id);
    const unpriced = record(null, null, { ticket: 'T-1' }, otherKey);
    const publisher = new LedgerPublisher(rpc);
    for (const one of [cheap, dear, other, unpriced]) publisher.save(one);
    await publisher.flush();

    const ids = async (query: string) => {
      const response = await get(`/v1/private/requests?user=filter-user&${query}`);
      expect(response.status).toBe(200);
      return ((await response.json()) as { requests: RequestListItem[] }).requests.map((request) => request.request_id);
    };
    await expectEventually(async () => expect(await ids('')).toHaveLength(4));
    // Newest first, as every listing.
    expect(await ids('model=fake-filter-a')).toEqual([dear.request_id, cheap.request_id]);
    expect(await ids(`api_key=${otherKey}`)).toEqual([unpriced.request_id, dear.request_id, cheap.request_id]);
    expect(await ids('metadata_key=ticket&metadata_value=T-1')).toEqual([unpriced.request_id, other.request_id, cheap.request_id]);
    expect(await ids('metadata_key=priority&metadata_value=5')).toEqual([dear.request_id]);
    expect(await ids('metadata_key=urgent&metadata_value=true')).toEqual([other.request_id]);
    expect(await ids('metadata_key=priority')).toEqual([dear.request_id, cheap.request_id]);
    // Bounds are inclusive; a run without a cost is outside every range.
    expect(await ids('min_cost_micros=50000')).toEqual([other.request_id, dear.request_id]);
    expect(await ids('max_cost_micros=50000')).toEqual([other.request_id, cheap.request_id]);
    expect(await ids('min_cost_micros=1000&max_cost_micros=1000')).toEqual([cheap.request_id]);
    expect(await ids('min_cost_micros=0')).toHaveLength(3);
    // The filters combine, and page like the rest.
    expect(await ids(`model=fake-filter-a&api_key=${otherKey}&metadata_key=ticket&metadata_value=T-2&max_cost_micros=300000`)).toEqual([
      dear.request_id,
    ]);
    expect(await ids(`api_key=${otherKey}&limit=1&before=${unpriced.request_id}`)).toEqual([dear.request_id]);

    // The real run: listed under the model that answered and the key that started it, with the model in its row.
    const mine = (await (await get(`/v1/private/requests?model=fake-ledger-chat&api_key=${workspace.api_key.id}`)).json()) as {
      requests: RequestListItem[];
    };
    expect(mine.requests.map((request) => request.request_id)).toContain(invokedId);
    expect(mine.requests.find((request) => request.request_id === invokedId)).toEqual(
      expect.objectContaining({ model: 'fake-ledger-chat', api_key_id: workspace.api_key.id, metadata: { ticket: 'T-9' } }),
    );

    // Another workspace's key sees none of them, whatever the filter.
    const stranger = await cliJson<{ api_key: string }>(['workspace', 'create', '--name', 'e2e ledger filters stranger']);
    const theirs = await fetch(`${gateway}/v1/private/requests?model=fake-filter-a&api_key=${otherKey}`, {
      headers: { authorization: `Bearer ${stranger.api_key}` },
    });
    expect(await theirs.json()).toEqual({ requests: [] });

    for (const bad of [
      'api_key=not-a-uuid',
      'min_cost_micros=-1',
      'max_cost_micros=1.5',
      'min_cost_micros=abc',
      `model=${'m'.repeat(201)}`,
    ]) {
      const response = await get(`/v1/private/requests?${bad}`);
      expect([bad, response.status]).toEqual([bad, 422]);
      expect(await response.json()).toEqual(expect.objectContaining({ error_code: 'validation_error', code: 'validation_error' }));
    }
  });

  it("never shows another workspace's run, whichever service recorded it", async () => {
    const stranger = await cliJson<{ api_key: string }>(['workspace', 'create', '--name', 'e2e ledger stranger']);
    const listed = (await (await get('/v1/private/requests')).json()) as { requests: RequestListItem[] };
    expect(listed.requests.length).toBeGreaterThan(0);
    for (const request of listed.requests) {
      const foreign = await fetch(`${gateway}/v1/public/requests/${request.request_id}`, {
        headers: { authorization: `Bearer ${stranger.api_key}` },
      });
      expect(foreign.status).toBe(404);
    }
    const theirs = (await (
      await fetch(`${gateway}/v1/private/requests`, { headers: { authorization: `Bearer ${stranger.api_key}` } })
    ).json()) as { requests: RequestListItem[] };
    expect(theirs.requests).toEqual([]);
  });
});
