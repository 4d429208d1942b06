import type { BudgetAlertView, BudgetView, BudgetWritten, CreditsView, RequestListItem, SpendView } from '@waggle/contracts';
import { GovernanceKeys } from '@waggle/contracts';
import {
  applyDefinitions,
  CallbackReceiver,
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import OpenAI, { RateLimitError } from 'openai';
import { Webhook } from 'standardwebhooks';
import { TEST_REDIS_URL } from '../setup/test-env';

const MODEL = 'fake-gov-chat';
const OTHER_MODEL = 'fake-gov-other';
const AGENT_MODEL = 'fake-gov-agent';
/** The operator's key for the fake provider (hosted runs present it). */
const OPERATOR_KEY = 'fake-key';
/** The plan whose workspaces draw on hosted credits in this spec (set in its describe, put back after). */
const CREDITS_PLAN = 'developer';
const DEFINITIONS = `
prompts:
  - deployment: governed
    variants:
      - name: default
        model: ${MODEL}
        messages:
          - { role: user, content: "{{ question }}" }
      - name: other
        model: ${OTHER_MODEL}
        messages:
          - { role: user, content: "{{ question }}" }
      - name: own
        model: ${MODEL}
        credentials: workspace
        messages:
          - { role: user, content: "{{ question }}" }
workflows:
  - deployment: governed-flow
    variants:
      - name: default
        output: "{{ ask.output }}"
        steps:
          - id: ask
            type: prompt
            model: ${MODEL}
            messages: [ { role: user, content: "From the workflow" } ]
`;

/** What every run of MODEL reports, and so what it costs at FAKE_MODEL_PRICING (input 1, output 4 USD per million): 1000 + 1000 micro-USD. */
const USAGE = { promptTokens: 1_000, completionTokens: 250 };
const RUN_COST = 1_000 * 1 + 250 * 4;

const RATE_HEADERS = [
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
];

interface Tenant {
  workspaceId: string;
  key: string;
  keyId: string;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/**
 * Usage governance over HTTP, with two gateway replicas and two invocation replicas sharing one
 * Redis (the spec's decisions on usage governance), set up only through its real surfaces: budgets
 * and rate limits created on `/v1/private/*` through one gateway and enforced through both, the
 * run cost a budget reserves learned from a real run's reconciliation, hosted credits topped up
 * with the CLI. Shown: requests and tokens per minute (429 too_many_requests with Retry-After and
 * OpenAI's six headers, seen by the official SDK, on prompt, agent, workflow and streamed
 * answers), budgets (422 account_credit_cap_reached) exact under 50 concurrent requests across
 * the replicas and never passed by more than one run's cost, their signed alerts, a stream cut
 * short by its client charged to the spend for what it used, hosted credits
 * (402 insufficient_hosted_llm_credits, a balance taken below zero by a run already admitted, a
 * run on the workspace's own key not charged to them), spend per key, user, model and day equal
 * to the ledger's costs, and malformed bodies on a limited key answered in the catalog's shape.
 */
describe('usage governance: enforcement across replicas', () => {
  const fake = new FakeProviderServer({ usage: USAGE });
  const receiver = new CallbackReceiver();
  const apps: AppProcess[] = [];
  const gateways: AppProcess[] = [];
  const redis = new Redis(TEST_REDIS_URL);
  let receiverUrl: string;

  async function tenant(name: string, plan = 'enterprise'): Promise<Tenant> {
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', name, '--plan', plan]);
    await applyDefinitions(DEFINITIONS, created.workspace_id);
    const key = await cliJson<{ id: string; api_key: string }>(['key', 'create', created.workspace_id, '--json']);
    return { workspaceId: created.workspace_id, key: key.api_key, keyId: key.id };
  }

  async function call(index: number, method: string, path: string, who: Tenant, body?: unknown): Promise<Answer> {
    const gateway = gateways[index % gateways.length];
    const response = await fetch(`${gateway.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
  }

  const post = (index: number, path: string, who: Tenant, body: unknown) => call(index, 'POST', path, who, body);

  const invoke = (index: number, who: Tenant, question: string, extra: Record<string, unknown> = {}) =>
    post(index, '/v1/prompt/invoke', who, { deployment: 'governed', variant: 'default', inputs: { question }, ...extra });

  /** Creates one of the workspace's governance records through the first gateway (what admission then reads on both). */
  async function create<T>(who: Tenant, path: '/budgets' | '/rate_limits', body: Record<string, unknown>): Promise<T> {
    const answer = await post(0, `/v1/private${path}`, who, body);
    expect(answer.status).toBe(201);
    return answer.body as T;
  }

  const budgetOf = async (who: Tenant, id: string) =>
    (await call(1, 'GET', `/v1/private/budgets/${id}`, who)).body as unknown as BudgetView;
  const creditsOf = async (who: Tenant) => (await call(1, 'GET', '/v1/private/credits', who)).body as unknown as CreditsView;

  /** The workspace's ledger records once every one of `requestIds` has ended. */
  const ledgerOnceEnded = (who: Tenant, requestIds: readonly string[]) =>
    expectEventually(
      async () => {
        const { body } = await call(0, 'GET', '/v1/private/requests?limit=1000', who);
        const records = body.requests as RequestListItem[];
        const ended = new Set(records.filter((record) => record.ended_at).map((record) => record.request_id));
        expect(requestIds.filter((id) => !ended.has(id))).toEqual([]);
        return records;
      },
      { timeoutMs: 30_000 },
    );

  /** A run to its end: its answer's request id once its ledger record has ended, with its record. */
  async function ranToEnd(who: Tenant, answer: Answer): Promise<RequestListItem> {
    expect(answer.status).toBe(200);
    const requestId = answer.body.request_id as string;
    const records = await ledgerOnceEnded(who, [requestId]);
    return records.find((record) => record.request_id === requestId) as RequestListItem;
  }

  const atProvider = (question: string) => fake.requests.filter((record) => JSON.stringify(record.body).includes(question));
  const heldAtProvider = (question: string) => atProvider(question).length;

  /** Fires `count` requests at once across the gateways while the model holds them: answers the refusals once every request is decided, then the whole lot once released. */
  async function burstWhileHeld(count: number, question: string, send: (index: number) => Promise<Answer>) {
    const release = fake.hold(MODEL);
    const refused: Answer[] = [];
    const answers = Array.from({ length: count }, (_, index) =>
      send(index).then((answer) => {
        if (answer.status !== 200) refused.push(answer);
        return answer;
      }),
    );
    await expectEventually(() => expect(refused.length + heldAtProvider(question)).toBe(count), { timeoutMs: 30_000 });
    const decided = { refused: [...refused], admitted: heldAtProvider(question) };
    release();
    return { ...decided, all: await Promise.all(answers) };
  }

  /**
   * One real run reconciled: the workspace's spend in Redis grows by its cost, and the run cost
   * admission reserves from then on is learned from it (reconciliation writes both at once).
   */
  async function warmUp(who: Tenant, budgetId: string): Promise<void> {
    const before = (await budgetOf(who, budgetId)).spent_micros;
    await ranToEnd(who, await invoke(1, who, 'warm up'));
    await expectEventually(async () => expect((await budgetOf(who, budgetId)).spent_micros).toBe(before + RUN_COST));
  }

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    receiverUrl = await receiver.start();
    const env = {
      LOG_LEVEL: 'warn',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: OPERATOR_KEY,
      PROVIDER_MAX_RETRIES: '0',
      CALLBACK_URL_ALLOWLIST: '127.0.0.1',
    };
    apps.push(spawnApp('catalog', await freePort(), env), spawnApp('agent', await freePort(), env));
    apps.push(spawnApp('invocation', await freePort(), env), spawnApp('invocation', await freePort(), env));
    apps.push(spawnApp('callback-dispatcher', await freePort(), { LOG_LEVEL: 'warn', CALLBACK_URL_ALLOWLIST: '127.0.0.1' }));
    gateways.push(spawnApp('gateway', await freePort(), env), spawnApp('gateway', await freePort(), env));
    apps.push(...gateways);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    await loadCatalogWithFakeModels('2099.37.1', [
      fakeModel(MODEL, { reasoning: false }),
      fakeModel(OTHER_MODEL, { reasoning: false }),
      fakeModel(AGENT_MODEL, { reasoning: false, tool_calling: true, context_limit: 100_000 }),
    ]);
  });

  afterAll(async () => {
    redis.disconnect();
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
    await receiver.stop();
  });

  afterEach(() => fake.reset());

  it("answers 429 too_many_requests past the key's requests per minute, with Retry-After and the six headers on every answer", async () => {
    const who = await tenant('e2e governance rpm');
    await create(who, '/rate_limits', { scope: 'api_key', scope_id: who.keyId, requests_per_minute: 3, tokens_per_minute: 1_000_000 });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, index) => invoke(index, who, 'rpm burst')));
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect([admitted.length, refused.length]).toEqual([3, 5]);
    for (const answer of answers)
      for (const header of RATE_HEADERS) expect([header, answer.headers.get(header)]).toEqual([header, expect.any(String)]);
    expect(admitted.map((answer) => answer.headers.get('x-ratelimit-limit-requests'))).toEqual(['3', '3', '3']);
    expect(admitted.map((answer) => answer.headers.get('x-ratelimit-remaining-requests')).sort()).toEqual(['0', '1', '2']);
    for (const answer of refused) {
      expect(answer.body).toMatchObject({
        error_code: 'too_many_requests',
        code: 'too_many_requests',
        details: { scope: 'api_key', limit_type: 'requests_per_minute', limit: 3 },
      });
      expect(JSON.stringify(answer.body)).not.toContain(who.keyId);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(answer.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+s$/);
    }
  });

  it('holds a tokens-per-minute limit under 50 concurrent requests: the estimates admitted never pass it', async () => {
    const who = await tenant('e2e governance tpm');
    const limit = 4_000;
    await create(who, '/rate_limits', { scope: 'api_key', scope_id: who.keyId, tokens_per_minute: limit });
    const body = {
      model: 'prompt/governed/default',
      messages: [{ role: 'user', content: 'tpm burst' }],
      max_tokens: 500,
      inputs: { question: 'tpm burst' },
    };
    const estimate = Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 4) + 500;
    const { refused, admitted, all } = await burstWhileHeld(50, 'tpm burst', (index) =>
      post(index, '/openai/v1/chat/completions', who, body),
    );
    expect(admitted * estimate).toBeLessThanOrEqual(limit);
    expect(admitted).toBe(Math.floor(limit / estimate));
    expect(refused).toHaveLength(50 - admitted);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body).toMatchObject({ error: { code: 'too_many_requests', type: 'rate_limit_error' } });
      expect(answer.headers.get('x-ratelimit-limit-tokens')).toBe(String(limit));
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(all.filter((answer) => answer.status === 200)).toHaveLength(admitted);
  });

  it('refuses with 422 account_credit_cap_reached once spend and the runs in flight reach the budget, exactly, across replicas', async () => {
    const who = await tenant('e2e governance budget');
    // One warm-up run, then room for exactly ten more at the run cost it taught.
    const limit = RUN_COST * 11;
    const budget = await create<BudgetWritten>(who, '/budgets', { scope: 'workspace', period: 'day', limit_micros: limit });
    await warmUp(who, budget.id);
    const { refused, admitted, all } = await burstWhileHeld(50, 'budget burst', (index) => invoke(index, who, 'budget burst'));
    expect(admitted).toBe(10);
    expect(refused).toHaveLength(40);
    for (const answer of refused)
      expect(answer.body).toMatchObject({
        error_code: 'account_credit_cap_reached',
        code: 'account_credit_cap_reached',
        details: { scope: 'workspace', scope_id: null, period: 'day', limit_micros: limit, spent_micros: RUN_COST },
      });
    expect(all.filter((answer) => answer.status === 200)).toHaveLength(10);
    // The runs' ledger records end on either invocation replica: their reservations are released.
    await expectEventually(async () => expect(await redis.hget(GovernanceKeys.pendingAmounts(who.workspaceId, 'ws'), 'total')).toBe('0'), {
      timeoutMs: 30_000,
    });
    // Spend is now at the cap, all of it real: room for one more run admits exactly it (a reservation left behind would not).
    await expectEventually(async () => expect((await budgetOf(who, budget.id)).spent_micros).toBe(limit));
    expect((await call(0, 'PATCH', `/v1/private/budgets/${budget.id}`, who, { limit_micros: limit + RUN_COST })).status).toBe(200);
    expect((await invoke(0, who, 'after the burst')).status).toBe(200);
    expect((await invoke(1, who, 'past the raised cap')).status).toBe(422);
  });

  it("never lets 50 free-running concurrent runs pass a budget by more than one run's cost, and sends its signed alerts once", async () => {
    const who = await tenant('e2e governance real cost');
    const limit = RUN_COST * 10 + RUN_COST / 2;
    const budget = await create<BudgetWritten>(who, '/budgets', {
      scope: 'workspace',
      period: 'day',
      limit_micros: limit,
      thresholds: [50, 100],
      alert_url: `${receiverUrl}/budget-alerts`,
    });
    expect(budget.webhook_secret).toMatch(/^whsec_/);
    await warmUp(who, budget.id);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => invoke(index, who, `real cost ${index}`)));
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(admitted.length + refused.length).toBe(50);
    for (const answer of refused)
      expect(answer).toMatchObject({
        status: 422,
        body: {
          error_code: 'account_credit_cap_reached',
          details: { scope: 'workspace', scope_id: null, period: 'day', limit_micros: limit },
        },
      });

    // Every admitted run has ended and been reconciled: the ledger's costs and the budget's spend agree.
    const ids = admitted.map((answer) => answer.body.request_id as string);
    const records = await ledgerOnceEnded(who, ids);
    const ledgerCost = records.reduce((sum, record) => sum + (record.cost_micros ?? 0), 0);
    expect(records.filter((record) => record.ended_at && record.cost_micros)).toHaveLength(admitted.length + 1);
    await expectEventually(async () => expect((await budgetOf(who, budget.id)).spent_micros).toBe(ledgerCost), { timeoutMs: 30_000 });
    expect(ledgerCost).toBeGreaterThanOrEqual(limit);
    expect(ledgerCost).toBeLessThanOrEqual(limit + RUN_COST);
    expect(admitted.length).toBe(10);

    // One signed webhook per threshold, verified as a receiver would, and both kept.
    const alerts = await expectEventually(() => {
      const received = receiver.on('/budget-alerts');
      expect(received).toHaveLength(2);
      return received;
    });
    const bodies = alerts.map((callback) => {
      const verified = new Webhook(budget.webhook_secret as string).verify(callback.body, {
        'webhook-id': String(callback.headers['webhook-id']),
        'webhook-timestamp': String(callback.headers['webhook-timestamp']),
        'webhook-signature': String(callback.headers['webhook-signature']),
      });
      expect(verified).toEqual(JSON.parse(callback.body));
      return verified as Record<string, unknown>;
    });
    const byEvent = Object.fromEntries(bodies.map((body) => [body.event, body]));
    expect(Object.keys(byEvent).sort()).toEqual(['budget.exceeded', 'budget.threshold_crossed']);
    expect(byEvent['budget.threshold_crossed']).toEqual({
      event: 'budget.threshold_crossed',
      scope: 'workspace',
      scope_id: null,
      period: 'day',
      spent_micros: expect.any(Number),
      limit_micros: limit,
      at: expect.any(String),
    });
    expect(byEvent['budget.threshold_crossed'].spent_micros).toBeGreaterThanOrEqual(limit / 2);
    expect(byEvent['budget.exceeded']).toMatchObject({ scope: 'workspace', limit_micros: limit });
    expect(byEvent['budget.exceeded'].spent_micros).toBeGreaterThanOrEqual(limit);
    expect(JSON.stringify(alerts)).not.toContain(budget.webhook_secret);
    const listed = (await call(1, 'GET', '/v1/private/budget_alerts', who)).body.budget_alerts as BudgetAlertView[];
    expect(listed.map((alert) => [alert.event, alert.threshold, alert.budget_id]).sort()).toEqual([
      ['budget.exceeded', 100, budget.id],
      ['budget.threshold_crossed', 50, budget.id],
    ]);
    expect(listed.every((alert) => alert.delivery_id !== null)).toBe(true);
  });

  it("limits an end user's requests apart from the key's", async () => {
    const who = await tenant('e2e governance user');
    await create(who, '/rate_limits', { scope: 'user', scope_id: 'ann', requests_per_minute: 1 });
    expect((await invoke(0, who, 'user one', { user: 'ann' })).status).toBe(200);
    const refused = await invoke(1, who, 'user two', { user: 'ann' });
    expect(refused).toMatchObject({ status: 429, body: { error_code: 'too_many_requests', details: { scope: 'user' } } });
    expect(JSON.stringify(refused.body)).not.toContain('ann');
    expect((await invoke(0, who, 'user three', { user: 'bob' })).status).toBe(200);
  });

  it('answers 429 too_many_requests on an agent invoke and on a workflow invoke past the limit', async () => {
    const who = await tenant('e2e governance agent flow');
    const created = await post(0, `/v1/public/workspaces/${who.workspaceId}/agents`, who, {
      agent: { model_type: 'llm', name: 'Governed', llm_model: AGENT_MODEL },
    });
    expect(created.status).toBe(200);
    const agent = (created.body.agent as { id: string }).id;
    await create(who, '/rate_limits', { scope: 'user', scope_id: 'carol', requests_per_minute: 2 });
    const agentInvoke = (index: number) => post(index, '/v1/agent/invoke', who, { agent, message: 'Hello', user: 'carol' });
    const workflowInvoke = (index: number) =>
      post(index, '/v1/workflow/invoke', who, { deployment: 'governed-flow', variant: 'default', inputs: {}, user: 'carol' });
    expect((await agentInvoke(0)).status).toBe(200);
    expect((await workflowInvoke(1)).status).toBe(200);
    for (const refused of [await agentInvoke(1), await workflowInvoke(0)]) {
      expect(refused).toMatchObject({
        status: 429,
        body: { error_code: 'too_many_requests', code: 'too_many_requests', details: { scope: 'user', limit_type: 'requests_per_minute' } },
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('2');
    }
  });

  it('sends the six headers on streamed answers too (OpenAI stream: true and a streaming prompt invoke)', async () => {
    const who = await tenant('e2e governance stream');
    await create(who, '/rate_limits', { scope: 'api_key', scope_id: who.keyId, requests_per_minute: 100, tokens_per_minute: 500_000 });
    const stream = (index: number, path: string, body: unknown) =>
      fetch(`${gateways[index].baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${who.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const streamed = [
      await stream(0, '/openai/v1/chat/completions', {
        model: 'prompt/governed/default',
        messages: [{ role: 'user', content: 'stream' }],
        inputs: { question: 'stream' },
        stream: true,
      }),
      await stream(1, '/v1/prompt/invoke', { deployment: 'governed', variant: 'default', inputs: { question: 'stream' }, streaming: true }),
    ];
    for (const response of streamed) {
      expect([response.status, response.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/event-stream/)]);
      for (const header of RATE_HEADERS) expect([header, response.headers.get(header)]).toEqual([header, expect.any(String)]);
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('100');
      expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('500000');
      expect((await collectSse(response)).length).toBeGreaterThan(0);
    }
    expect(streamed.map((response) => Number(response.headers.get('x-ratelimit-remaining-requests')))).toEqual([99, 98]);
  });

  it('shows the headers to the official openai SDK, on an answer and on a 429', async () => {
    const who = await tenant('e2e governance sdk');
    await create(who, '/rate_limits', { scope: 'api_key', scope_id: who.keyId, requests_per_minute: 1, tokens_per_minute: 100_000 });
    const client = new OpenAI({ baseURL: `${gateways[0].baseUrl}/openai/v1`, apiKey: who.key, maxRetries: 0 });
    const ask = () =>
      client.chat.completions.create({
        model: 'prompt/governed/default',
        messages: [{ role: 'user', content: 'sdk' }],
        metadata: { question: 'sdk' },
      });
    const { response } = await ask().withResponse();
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('1');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
    const refusal = await ask().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RateLimitError);
    const headers = (refusal as RateLimitError).headers;
    expect(Number(headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (const header of RATE_HEADERS) expect([header, headers?.get(header)]).toEqual([header, expect.any(String)]);
  });

  it("charges a stream its client left midway to the budget's spend, for what it used", async () => {
    const who = await tenant('e2e governance aborted stream');
    const watch = await create<BudgetWritten>(who, '/budgets', { scope: 'workspace', period: 'month', limit_micros: 1_000_000_000 });
    fake.setModel(MODEL, { response: 'one two three four five six seven eight', chunkSize: 1 });
    const gate = fake.gate(MODEL, 3);
    const client = new AbortController();
    const probe = randomBytes(8).toString('hex');
    const response = await fetch(`${gateways[1].baseUrl}/v1/prompt/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${who.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        deployment: 'governed',
        variant: 'default',
        inputs: { question: `abort ${probe}` },
        streaming: true,
        metadata: { probe },
      }),
      signal: client.signal,
    });
    expect(response.status).toBe(200);
    await gate.reached;
    client.abort();
    await expectEventually(() => expect(atProvider(probe)).toEqual([expect.objectContaining({ aborted: true })]));
    gate.release();
    const run = await expectEventually(async () => {
      const { body } = await call(0, 'GET', `/v1/private/requests?metadata_key=probe&metadata_value=${probe}`, who);
      expect(body.requests).toEqual([expect.objectContaining({ status: 'cancelled', cost_micros: expect.any(Number) })]);
      return (body.requests as RequestListItem[])[0];
    });
    expect(run.cost_micros).toBeGreaterThan(0);
    await expectEventually(async () => expect((await budgetOf(who, watch.id)).spent_micros).toBe(run.cost_micros));
  });

  it('answers 422 personal_model_missing_credentials and personal_model_invalid_credentials for a workspace-key run, on either replica', async () => {
    const who = await tenant('e2e governance personal keys');
    const own = (index: number, question: string) =>
      post(index, '/v1/prompt/invoke', who, { deployment: 'governed', variant: 'own', inputs: { question } });
    for (const index of [0, 1]) {
      expect(await own(index, `no key ${index}`)).toMatchObject({
        status: 422,
        body: { error_code: 'personal_model_missing_credentials' },
      });
      expect(atProvider(`no key ${index}`)).toEqual([]);
    }
    const refusedOnSave = await post(1, '/v1/private/provider_credentials', who, {
      provider: 'fake',
      api_key: `bad-${randomBytes(8).toString('hex')}`,
    });
    expect(refusedOnSave).toMatchObject({ status: 422, body: { error_code: 'personal_model_invalid_credentials' } });

    const workspaceKey = `sk-ws-${randomBytes(16).toString('hex')}`;
    expect((await post(0, '/v1/private/provider_credentials', who, { provider: 'fake', api_key: workspaceKey })).status).toBe(201);
    fake.rejectKeys(workspaceKey);
    for (const index of [0, 1]) {
      const refused = await own(index, `revoked key ${index}`);
      expect(refused).toMatchObject({ status: 422, body: { error_code: 'personal_model_invalid_credentials' } });
      expect(JSON.stringify(refused)).not.toContain(workspaceKey);
      // Refused by the provider with the workspace's key, never retried with the operator's.
      expect(atProvider(`revoked key ${index}`).map((request) => request.apiKey)).toEqual([workspaceKey]);
    }
  });

  describe('hosted credits', () => {
    beforeAll(async () => {
      expect(await cliJson(['plan', 'set', CREDITS_PLAN, '--hosted-credits', 'true'])).toMatchObject({ hosted_credits: true });
    });

    afterAll(async () => {
      await cliJson(['plan', 'set', CREDITS_PLAN, '--hosted-credits', 'false']);
    });

    const topUp = (who: Tenant, micros: number) =>
      cliJson<CreditsView>(['credits', 'top-up', who.workspaceId, '--micros', String(micros), '--note', 'e2e', '--json']);

    it('answers 402 insufficient_hosted_llm_credits at a zero balance without calling the provider, and runs once topped up, charged its cost', async () => {
      const who = await tenant('e2e governance credits', CREDITS_PLAN);
      expect(await creditsOf(who)).toEqual({ balance_micros: 0, applies: true, entries: [] });
      for (const index of [0, 1]) {
        const refused = await invoke(index, who, `no credits ${index}`);
        expect(refused).toMatchObject({
          status: 402,
          body: { error_code: 'insufficient_hosted_llm_credits', code: 'insufficient_hosted_llm_credits' },
        });
        expect(atProvider(`no credits ${index}`)).toEqual([]);
      }

      expect(await topUp(who, 5_000)).toMatchObject({
        balance_micros: 5_000,
        applies: true,
        entries: [{ amount_micros: 5_000, kind: 'top_up' }],
      });
      const record = await ranToEnd(who, await invoke(1, who, 'no credits 1'));
      expect(record).toMatchObject({ status: 'completed', credentials: 'hosted', cost_micros: RUN_COST });
      expect(atProvider('no credits 1').map((request) => request.apiKey)).toEqual([OPERATOR_KEY]);
      await expectEventually(async () => expect((await creditsOf(who)).balance_micros).toBe(5_000 - RUN_COST));
    });

    it('lets the run admitted on a balance smaller than its cost finish below zero, refuses the next, and runs and does not charge a run on the workspace key', async () => {
      const who = await tenant('e2e governance credits low', CREDITS_PLAN);
      // A workspace budget only to watch each run's reconciliation (its spend) in Redis.
      const watch = await create<BudgetWritten>(who, '/budgets', { scope: 'workspace', period: 'month', limit_micros: 1_000_000_000 });
      await topUp(who, RUN_COST / 4);
      await ranToEnd(who, await invoke(0, who, 'small top-up'));
      await expectEventually(async () => expect((await creditsOf(who)).balance_micros).toBe(RUN_COST / 4 - RUN_COST));
      expect(await invoke(1, who, 'below zero')).toMatchObject({ status: 402, body: { error_code: 'insufficient_hosted_llm_credits' } });
      expect(atProvider('below zero')).toEqual([]);

      const workspaceKey = `sk-ws-${randomBytes(16).toString('hex')}`;
      expect((await post(0, '/v1/private/provider_credentials', who, { provider: 'fake', api_key: workspaceKey })).status).toBe(201);
      const own = await post(1, '/v1/prompt/invoke', who, { deployment: 'governed', variant: 'own', inputs: { question: 'own key' } });
      expect(JSON.stringify(own)).not.toContain(workspaceKey);
      const record = await ranToEnd(who, own);
      expect(record).toMatchObject({ status: 'completed', credentials: 'workspace', cost_micros: RUN_COST });
      expect(JSON.stringify(record)).not.toContain(workspaceKey);
      expect(atProvider('own key').map((request) => request.apiKey)).toEqual([workspaceKey]);
      // Reconciled (the spend counts it) and not charged to the credits.
      await expectEventually(async () => expect((await budgetOf(who, watch.id)).spent_micros).toBe(2 * RUN_COST));
      expect((await creditsOf(who)).balance_micros).toBe(RUN_COST / 4 - RUN_COST);
      for (const app of apps) expect(app.output()).not.toContain(workspaceKey);
    });
  });

  it('reads spend per API key, end user, model and day equal to the ledger records’ costs', async () => {
    const who = await tenant('e2e governance spend');
    const second = await cliJson<{ id: string; api_key: string }>(['key', 'create', who.workspaceId, '--json']);
    const other: Tenant = { ...who, key: second.api_key, keyId: second.id };
    fake.setModel(OTHER_MODEL, { usage: { promptTokens: 2_000, completionTokens: 100 } });
    const runs = await Promise.all([
      invoke(0, who, 'spend 1', { user: 'ann' }),
      invoke(1, who, 'spend 2', { user: 'ann' }),
      invoke(0, who, 'spend 3', { user: 'bob' }),
      post(1, '/v1/prompt/invoke', other, { deployment: 'governed', variant: 'other', inputs: { question: 'spend 4' }, user: 'ann' }),
      invoke(0, other, 'spend 5'),
    ]);
    expect(runs.map((run) => run.status)).toEqual([200, 200, 200, 200, 200]);
    const records = await ledgerOnceEnded(
      who,
      runs.map((run) => run.body.request_id as string),
    );
    expect(records.map((record) => record.cost_micros).sort()).toEqual([2_400, RUN_COST, RUN_COST, RUN_COST, RUN_COST].sort());
    const sums = (key: (record: RequestListItem) => string | null) => {
      const out = new Map<string | null, { cost_micros: number; runs: number }>();
      for (const record of records) {
        const group = out.get(key(record)) ?? { cost_micros: 0, runs: 0 };
        out.set(key(record), { cost_micros: group.cost_micros + (record.cost_micros ?? 0), runs: group.runs + 1 });
      }
      return [...out].map(([group, sum]) => ({ key: group, ...sum }));
    };
    const byKey = (groups: Array<{ key: string | null }>) => [...groups].sort((a, b) => String(a.key).localeCompare(String(b.key)));
    const expected = {
      api_key: sums((record) => record.api_key_id),
      user: sums((record) => record.user),
      model: sums((record) => (record.request_id === runs[3].body.request_id ? OTHER_MODEL : MODEL)),
      day: sums((record) => record.generated_at.slice(0, 10)),
    };
    expect(byKey(expected.api_key).map((group) => group.key)).toEqual([who.keyId, second.id].sort());
    expect(byKey(expected.user).map((group) => group.key)).toEqual(['ann', 'bob', null]);
    for (const [groupBy, groups] of Object.entries(expected)) {
      const answer = await call(1, 'GET', `/v1/private/spend?group_by=${groupBy}`, who);
      expect(answer.status).toBe(200);
      const spend = answer.body as unknown as SpendView;
      expect({ groupBy, groups: byKey(spend.groups) }).toEqual({ groupBy, groups: byKey(groups) });
      expect(spend.total_cost_micros).toBe(4 * RUN_COST + 2_400);
      expect(spend.total_runs).toBe(5);
    }
  });

  describe('raw HTTP on a limited key', () => {
    let who: Tenant;

    beforeAll(async () => {
      who = await tenant('e2e governance raw');
      await create(who, '/rate_limits', {
        scope: 'api_key',
        scope_id: who.keyId,
        requests_per_minute: 1_000,
        tokens_per_minute: 1_000_000,
      });
      await create(who, '/budgets', { scope: 'workspace', period: 'day', limit_micros: 1_000_000_000, thresholds: [100] });
    });

    /** One request as bytes on a socket: the status line and the JSON body of the answer. */
    function raw(path: string, body: string, contentType = 'application/json'): Promise<{ status: number; body: Record<string, unknown> }> {
      const url = new URL(gateways[1].baseUrl);
      return new Promise((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname);
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString('utf8')));
        socket.on('error', reject);
        socket.on('end', () => {
          const [head, payload] = text.split('\r\n\r\n');
          resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(payload) as Record<string, unknown> });
        });
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${who.key}\r\nContent-Type: ${contentType}\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
    }

    it.each([
      ['a JSON array', '/v1/prompt/invoke', '[1,2,3]'],
      [
        'a user that is no string',
        '/v1/prompt/invoke',
        '{"deployment":"governed","variant":"default","inputs":{"question":"x"},"user":{"a":1}}',
      ],
      [
        'a max_tokens that is no number',
        '/openai/v1/chat/completions',
        '{"model":"prompt/governed/default","messages":[],"max_tokens":"lots"}',
      ],
      [
        'a negative max_tokens',
        '/openai/v1/chat/completions',
        '{"model":"prompt/governed/default","messages":[{"role":"user","content":"x"}],"max_tokens":-4}',
      ],
      ['a JSON string', '/openai/v1/chat/completions', '"just text"'],
      ['a truncated body', '/v1/prompt/invoke', '{"deployment":"gov'],
    ])('answers %s with a 4xx in its surface’s error shape and gives back what it reserved', async (_name, path, body) => {
      const answer = await raw(path, body);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      if (path.startsWith('/openai/')) expect(answer.body).toMatchObject({ error: { message: expect.any(String) } });
      else
        expect(answer.body).toMatchObject({
          error: expect.any(String),
          message: expect.any(String),
          error_code: expect.any(String),
          code: answer.body.error_code,
        });
      await expectEventually(async () =>
        expect(Number((await redis.hget(GovernanceKeys.pendingAmounts(who.workspaceId, 'ws'), 'total')) ?? '0')).toBe(0),
      );
    });
  });
});
