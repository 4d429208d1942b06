import type { AgentRecord, RequestListItem } from '@waggle/contracts';
import {
  CallbackReceiver,
  cliJson,
  expectEventually,
  FAKE_MODEL_PRICING,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DEFINITIONS = `
prompts:
  - deployment: priced
    variants:
      - name: plain
        model: fake-cost-chat
        messages: [ { role: user, content: "{{ question }}" } ]
      - name: reasoning
        model: fake-cost-reasoning
        messages: [ { role: user, content: "{{ question }}" } ]
      - name: streamed
        model: fake-cost-stream
        messages: [ { role: user, content: "{{ question }}" } ]
      - name: overridden
        model: fake-cost-override
        messages: [ { role: user, content: "{{ question }}" } ]
      - name: half
        model: fake-cost-half
        messages: [ { role: user, content: "{{ question }}" } ]
workflows:
  - deployment: costed-flow
    variants:
      - name: two-prompts
        inputs: { question: { type: text, required: true } }
        output: "{{ inline.output }} / {{ deployed.output }}"
        steps:
          - { id: inline, type: prompt, model: fake-cost-half, messages: [ { role: user, content: "inline {{ question }}" } ] }
          - { id: deployed, type: prompt, deployment: priced, variant: half, inputs: { question: "{{ question }}" } }
`;

/** A workflow whose second step is an agent run (its agent known once created). */
const AGENT_WORKFLOW = (agentId: string) => `
workflows:
  - deployment: costed-flow
    variants:
      - name: with-agent
        inputs: { question: { type: text, required: true } }
        output: "{{ inline.output }} / {{ answer.output }}"
        steps:
          - { id: inline, type: prompt, model: fake-cost-chat, messages: [ { role: user, content: "inline {{ question }}" } ] }
          - { id: answer, type: agent, agent: ${agentId}, message: "{{ question }}" }
`;

/** What every priced fake model reports: 1000 prompt tokens (400 read from the cache), 300 completion tokens (100 of them reasoning). */
const USAGE = { promptTokens: 1000, cachedTokens: 400, reasoningTokens: 100, completionTokens: 300 };
/** At FAKE_MODEL_PRICING (input 1, cached 0.1, output 4 USD per million): 600 × 1 + 400 × 0.1 + 300 × 4 micro-USD. */
const PLAIN_COST = 600 + 40 + 1_200;
/** What fake-cost-half reports: 5 more cached prompt tokens, so half a micro-USD more (40.5 for the cache). */
const HALF_USAGE = { ...USAGE, promptTokens: 1005, cachedTokens: 405 };
/** Two calls of fake-cost-half at 600 × 1 + 405 × 0.1 + 300 × 4 = 1840.5 micro-USD: 3681, not the 3682 of two calls rounded each. */
const TWO_HALF_CALLS_COST = 3_681;

/** The request id of the run a workflow's step starts in another service (as the invocation service names it). */
const childRequestId = (runId: string, stepKey: string) =>
  `req_${createHash('sha256').update(`${runId}/${stepKey}`).digest('hex').slice(0, 32)}`;

/**
 * Prices and cost (the spec's decisions on usage governance) through the whole stack: the
 * catalog's prices, the cost each run's ledger record gets from the provider's usage (cached and
 * reasoning tokens counted once), the request lookup's `cost_micros`, a stream cut short by its
 * client charged for what it used, an operator's price override, and workflow runs (sync and
 * async) charged for the model calls they make themselves (an agent step's are its agent run's).
 */
describe('usage governance: prices and cost', () => {
  const fake = new FakeProviderServer({});
  const receiver = new CallbackReceiver();
  const apps: AppProcess[] = [];
  let receiverUrl: string;
  let gateway: string;
  let key: string;
  let workspaceId: string;
  let agent: AgentRecord;

  const post = (path: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${gateway}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as T };
  };
  /** The run's lookup once it has ended. */
  const ended = (requestId: string) =>
    expectEventually(async () => {
      const { status, body } = await get<Record<string, unknown>>(`/v1/public/requests/${requestId}`);
      expect(status).toBe(200);
      expect(body.ended_at).toEqual(expect.any(String));
      return body;
    });
  const listed = (requestId: string) =>
    expectEventually(async () => {
      const { body } = await get<{ requests: RequestListItem[] }>('/v1/private/requests?limit=100');
      const found = body.requests.find((request) => request.request_id === requestId);
      expect(found?.ended_at).toEqual(expect.any(String));
      return found as RequestListItem;
    });
  /** A workflow run of `costed-flow`'s variant, with a question of its own; its answer. */
  const invokeWorkflow = async (variant: string, extra: Record<string, unknown> = {}) => {
    const response = await post('/v1/workflow/invoke', {
      deployment: 'costed-flow',
      variant,
      inputs: { question: `flow ${randomUUID()}` },
      ...extra,
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { request_id: string; run_status: string; output?: string };
  };
  const invoke = async (variant: string, question = `what ${randomUUID()}`) => {
    const response = await post('/v1/prompt/invoke', { deployment: 'priced', variant, inputs: { question } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { request_id: string }).request_id;
  };

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    for (const model of ['fake-cost-chat', 'fake-cost-reasoning', 'fake-cost-override', 'fake-cost-agent'])
      fake.setModel(model, { response: 'priced answer', usage: USAGE });
    fake.setModel('fake-cost-half', { response: 'half answer', usage: HALF_USAGE });
    receiverUrl = await receiver.start();
    fake.setModel('fake-cost-stream', { response: 'one two three four five six seven eight', chunkSize: 1 });
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
    await loadCatalogWithFakeModels('2099.12.21', [
      fakeModel('fake-cost-chat', { reasoning: false }),
      fakeModel('fake-cost-reasoning', { pricing: { ...FAKE_MODEL_PRICING, reasoning: 10, price_version: 'fake-r' } }),
      fakeModel('fake-cost-stream', { reasoning: false }),
      fakeModel('fake-cost-override', { reasoning: false }),
      fakeModel('fake-cost-agent', { tool_calling: true, context_limit: 100_000 }),
      fakeModel('fake-cost-half', { reasoning: false }),
    ]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      'e2e cost',
      '--plan',
      'enterprise',
    ]);
    key = created.api_key;
    workspaceId = created.workspace_id;
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-cost-')), 'definitions.yaml');
    writeFileSync(file, DEFINITIONS);
    await cliJson(['apply', '-f', file, '--workspace', workspaceId]);
    const response = await post(`/v1/public/workspaces/${workspaceId}/agents`, {
      agent: { model_type: 'llm', name: 'Costed', llm_model: 'fake-cost-agent' },
    });
    expect(response.status).toBe(200);
    agent = ((await response.json()) as { agent: AgentRecord }).agent;
    const agentFile = join(mkdtempSync(join(tmpdir(), 'waggle-cost-')), 'agent-workflow.yaml');
    writeFileSync(agentFile, AGENT_WORKFLOW(agent.id));
    await cliJson(['apply', '-f', agentFile, '--workspace', workspaceId]);
  });

  afterAll(async () => {
    await cliJson(['model', 'price', 'reset', 'fake-cost-override']).catch(() => undefined);
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
    await receiver.stop();
  });

  it("answers a completed prompt run's cost from the provider's usage at the catalog price, cached tokens counted once", async () => {
    const requestId = await invoke('plain');
    const lookup = await ended(requestId);
    expect(lookup).toMatchObject({ request_id: requestId, status: 'completed', cost_micros: PLAIN_COST });
    expect(lookup).not.toHaveProperty('price_version');
    const row = await listed(requestId);
    expect(row).toMatchObject({ cost_micros: PLAIN_COST, price_version: 'fake-1', credentials: 'hosted', api_key_id: expect.any(String) });
  });

  it('prices reasoning tokens apart where the model bills them apart, once (not also as output)', async () => {
    const requestId = await invoke('reasoning');
    // 600 × 1 + 400 × 0.1 + 200 text tokens × 4 + 100 reasoning tokens × 10.
    expect(await ended(requestId)).toMatchObject({ status: 'completed', cost_micros: 600 + 40 + 800 + 1_000 });
    expect(await listed(requestId)).toMatchObject({ price_version: 'fake-r' });
  });

  it('costs an agent run', async () => {
    const response = await post('/v1/agent/invoke', { agent: agent.id, message: 'What does it cost?' });
    expect(response.status).toBe(200);
    const { request_id: requestId } = (await response.json()) as { request_id: string };
    expect(await ended(requestId)).toMatchObject({ status: 'completed', request_type: 'agent', cost_micros: PLAIN_COST });
  });

  it('charges a stream its client left midway for what it used, with no usage from the provider', async () => {
    const gate = fake.gate('fake-cost-stream', 3);
    const client = new AbortController();
    const probe = randomUUID();
    const response = await post(
      '/v1/prompt/invoke',
      { deployment: 'priced', variant: 'streamed', inputs: { question: `stream ${probe}` }, streaming: true, metadata: { probe } },
      client.signal,
    );
    expect(response.status).toBe(200);
    await gate.reached;
    client.abort();
    await expectEventually(() =>
      expect(fake.requests.filter((request) => JSON.stringify(request.body).includes(probe))).toEqual([
        expect.objectContaining({ aborted: true }),
      ]),
    );
    gate.release();
    const run = await expectEventually(async () => {
      const { body } = await get<{ requests: RequestListItem[] }>(`/v1/private/requests?metadata_key=probe&metadata_value=${probe}`);
      expect(body.requests).toEqual([expect.objectContaining({ status: 'cancelled' })]);
      return body.requests[0];
    });
    // Estimated: the prompt's characters and the three words streamed before the gate, four characters a token.
    expect(run.cost_micros).toBeGreaterThan(0);
    expect(run).toMatchObject({ price_version: 'fake-1', credentials: 'hosted' });
    expect((await get<Record<string, unknown>>(`/v1/public/requests/${run.request_id}`)).body).toMatchObject({
      status: 'cancelled',
      cost_micros: run.cost_micros,
    });
  });

  it("charges a sync workflow run the sum of its prompt steps' calls, rounded once", async () => {
    const answer = await invokeWorkflow('two-prompts');
    expect(answer).toMatchObject({ run_status: 'completed', output: 'half answer / half answer' });
    // An inline prompt step and a deployed prompt step: 1840.5 micro-USD each.
    expect(await ended(answer.request_id)).toMatchObject({
      request_type: 'workflow',
      status: 'completed',
      cost_micros: TWO_HALF_CALLS_COST,
    });
    expect(await listed(answer.request_id)).toMatchObject({
      cost_micros: TWO_HALF_CALLS_COST,
      price_version: 'fake-1',
      credentials: 'hosted',
    });
  });

  it('gives an async workflow run its cost in its record once its callback is sent', async () => {
    const { request_id: requestId } = await invokeWorkflow('two-prompts', {
      async: { enabled: true, callback_url: `${receiverUrl}/cost-hooks` },
    });
    const callback = await expectEventually(() => {
      const found = receiver
        .on('/cost-hooks')
        .find((received) => (JSON.parse(received.body) as { request_id: string }).request_id === requestId);
      expect(found).toBeDefined();
      return JSON.parse((found as { body: string }).body) as Record<string, unknown>;
    });
    expect(callback).toMatchObject({ event_type: 'workflow.completed', data: { output: 'half answer / half answer' } });
    expect(await ended(requestId)).toMatchObject({ request_type: 'workflow', status: 'completed', cost_micros: TWO_HALF_CALLS_COST });
    expect(await listed(requestId)).toMatchObject({ cost_micros: TWO_HALF_CALLS_COST, price_version: 'fake-1', credentials: 'hosted' });
  });

  it("leaves an agent step's calls out of the workflow's cost: the agent run's own record has them", async () => {
    const answer = await invokeWorkflow('with-agent');
    expect(answer).toMatchObject({ run_status: 'completed', output: 'priced answer / priced answer' });
    // The workflow made one call itself (the inline step); the agent's call is counted once, in the agent run.
    expect(await ended(answer.request_id)).toMatchObject({ request_type: 'workflow', cost_micros: PLAIN_COST });
    expect(await ended(childRequestId(answer.request_id, 'answer'))).toMatchObject({
      request_type: 'agent',
      status: 'completed',
      cost_micros: PLAIN_COST,
    });
  });

  it("charges the next runs at an operator's override, with its price version, until it is reset", async () => {
    const before = await invoke('overridden');
    expect(await listed(before)).toMatchObject({ cost_micros: PLAIN_COST, price_version: 'fake-1' });
    const set = await cliJson([
      'model',
      'price',
      'set',
      'fake-cost-override',
      '--input',
      '2',
      '--output',
      '8',
      '--price-version',
      'operator-1',
    ]);
    expect(set).toMatchObject({
      model: 'fake-cost-override',
      source: 'operator',
      pricing: { input: 2, cached_input: 2, cache_write: 2, output: 8, reasoning: null, price_version: 'operator-1' },
      catalog_pricing: { price_version: 'fake-1' },
    });
    // Runners cache a model's route (and its price) for 10 s: a run after that is charged the override.
    const after = await expectEventually(
      async () => {
        const row = await listed(await invoke('overridden'));
        expect(row.price_version).toBe('operator-1');
        return row;
      },
      { timeoutMs: 30_000 },
    );
    // No cache discount in the override: 1000 prompt tokens × 2 + 300 completion tokens × 8.
    expect(after.cost_micros).toBe(2_000 + 2_400);
    const listedPrices = await get<{ model_prices: Array<{ model: string; pricing: { price_version: string } }> }>(
      '/v1/private/model_prices',
    );
    expect(listedPrices.status).toBe(200);
    expect(listedPrices.body.model_prices.find((price) => price.model === 'fake-cost-override')).toEqual({
      model: 'fake-cost-override',
      name: 'Fake fake-cost-override',
      pricing: expect.objectContaining({ price_version: 'operator-1' }),
    });
    // A new catalog load keeps the override; a reset drops it.
    await loadCatalogWithFakeModels('2099.12.22', [fakeModel('fake-cost-override', { reasoning: false })]);
    expect(await cliJson(['model', 'price', 'show', 'fake-cost-override'])).toMatchObject({ source: 'operator' });
    expect(await cliJson(['model', 'price', 'reset', 'fake-cost-override'])).toMatchObject({
      source: 'catalog',
      pricing: { price_version: 'fake-1' },
    });
  });

  it('refuses a workspace key any way to set a price', async () => {
    const response = await post('/v1/private/model_prices', { model_id: 'fake-cost-chat', input: 0, output: 0, price_version: 'free' });
    expect(response.status).toBe(404);
  });
});
