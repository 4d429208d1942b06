import {
  CatalogPatterns,
  encodeBudgetField,
  encodeLimitField,
  GovernanceAdminPatterns,
  GovernanceKeys,
  periodKey,
  send,
  type BudgetCrossing,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import {
  CallbackReceiver,
  expectEventually,
  freePort,
  spawnApp,
  startServiceUnderTest,
  waitUntilLive,
  type AppProcess,
  type ServiceUnderTest,
} from '@waggle/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { bootstrap } from '../src/bootstrap';
import { BUDGET_ALERT_SINK, type BudgetAlertSink } from '../src/governance/budget-alert-sink';
import { GovernanceProjection } from '../src/governance-projection/governance-projection';

/** The 422 a refused write answers, with the message id that says why. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; detail: unknown; details: unknown }> {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WaggleException);
  const { code, detail, details } = error as WaggleException & { detail: unknown };
  return { code, detail, details };
}

/**
 * Usage governance's administration in the invocation service over NATS (the spec's decisions
 * on usage governance), started in-process with the real catalog (workspaces, API keys) and the
 * real callback-dispatcher: budgets and rate limits, their Redis projection (rewritten after every
 * change, never replaced by an older one), and the alert sink delivering a signed webhook.
 */
describe('invocation service over NATS: budgets, rate limits, projection and alerts', () => {
  const receiver = new CallbackReceiver();
  const apps: AppProcess[] = [];
  const redis = new Redis(process.env.REDIS_URL as string);
  let service: ServiceUnderTest;
  let workspaceId: string;
  let keyId: string;
  let receiverUrl: string;

  const projection = (workspace = workspaceId) => redis.hgetall(GovernanceKeys.projection(workspace));

  beforeAll(async () => {
    receiverUrl = await receiver.start();
    const catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    const dispatcher = spawnApp('callback-dispatcher', await freePort(), { LOG_LEVEL: 'warn', CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    apps.push(catalog, dispatcher);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error', CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    const created = await send(service.rpc, CatalogPatterns.createWorkspace, { name: 'governance admin' });
    workspaceId = created.workspace.id;
    keyId = created.api_key.id;
  });

  afterAll(async () => {
    await service?.stop();
    await Promise.all(apps.map((app) => app.stop()));
    await receiver.stop();
    redis.disconnect();
  });

  it('creates, reads, updates and deletes budgets, projecting each change into Redis with a greater version', async () => {
    const workspaceBudget = await service.send(GovernanceAdminPatterns.createBudget, {
      workspace_id: workspaceId,
      budget: { scope: 'workspace', period: 'month', limit_micros: 5_000_000 },
    });
    expect(workspaceBudget).toMatchObject({ scope: 'workspace', scope_id: null, thresholds: [80, 100], alert_url: null, spent_micros: 0 });
    expect(workspaceBudget).not.toHaveProperty('webhook_secret');
    const first = await projection();
    expect(first['budget:ws:month']).toBe(encodeBudgetField(5_000_000, workspaceBudget.id, [80, 100]));

    const keyBudget = await service.send(GovernanceAdminPatterns.createBudget, {
      workspace_id: workspaceId,
      budget: { scope: 'api_key', scope_id: keyId, period: 'day', limit_micros: 1_000, thresholds: [100, 50] },
    });
    expect(keyBudget.thresholds).toEqual([50, 100]);
    const second = await projection();
    expect(Number(second.version)).toBeGreaterThan(Number(first.version));
    expect(second[`budget:key:${keyId}:day`]).toBe(encodeBudgetField(1_000, keyBudget.id, [50, 100]));

    // The spend reconciliation counted this period is read back.
    await redis.set(GovernanceKeys.spend(workspaceId, `key:${keyId}`, periodKey('day', new Date())), '420');
    expect(await service.send(GovernanceAdminPatterns.getBudget, { workspace_id: workspaceId, budget_id: keyBudget.id })).toMatchObject({
      spent_micros: 420,
      period_resets_at: expect.stringMatching(/T00:00:00\.000Z$/),
    });

    const updated = await service.send(GovernanceAdminPatterns.updateBudget, {
      workspace_id: workspaceId,
      budget_id: keyBudget.id,
      budget: { limit_micros: 2_000 },
    });
    expect(updated).toMatchObject({ limit_micros: 2_000, thresholds: [50, 100], spent_micros: 420 });
    expect((await projection())[`budget:key:${keyId}:day`]).toBe(encodeBudgetField(2_000, keyBudget.id, [50, 100]));

    await service.send(GovernanceAdminPatterns.deleteBudget, { workspace_id: workspaceId, budget_id: keyBudget.id });
    expect(await projection()).not.toHaveProperty(`budget:key:${keyId}:day`);
    expect((await service.send(GovernanceAdminPatterns.listBudgets, { workspace_id: workspaceId })).map((budget) => budget.id)).toEqual([
      workspaceBudget.id,
    ]);
  });

  it('refuses a key of no workspace of its own, a second budget of a scope and period, a refused alert URL, and an unknown id', async () => {
    const create = (budget: Record<string, unknown>) =>
      service.send(GovernanceAdminPatterns.createBudget, { workspace_id: workspaceId, budget: budget as never });
    expect(await refusal(create({ scope: 'api_key', scope_id: randomUUID(), period: 'day', limit_micros: 1 }))).toMatchObject({
      code: 'validation_error',
      detail: 'scope_api_key_unknown',
    });
    expect(await refusal(create({ scope: 'workspace', period: 'month', limit_micros: 1 }))).toMatchObject({
      code: 'validation_error',
      detail: 'budget_exists',
    });
    expect(
      await refusal(create({ scope: 'user', scope_id: 'ann', period: 'day', limit_micros: 1, alert_url: 'http://10.0.0.1/hook' })),
    ).toMatchObject({
      code: 'validation_error',
      detail: 'url_refused',
      details: [{ field: 'alert_url', messages: [expect.any(String)] }],
    });
    expect(
      await refusal(service.send(GovernanceAdminPatterns.getBudget, { workspace_id: workspaceId, budget_id: randomUUID() })),
    ).toMatchObject({
      code: 'resource_not_found',
      detail: 'budget_not_found',
    });
  });

  it('keeps a newer projection than its own, and writes its own over an older one', async () => {
    const workspace = randomUUID();
    await redis.hset(GovernanceKeys.projection(workspace), 'version', '1000', 'budget:ws:day', 'stale');
    const limit = await service.send(GovernanceAdminPatterns.createRateLimit, {
      workspace_id: workspace,
      rate_limit: { scope: 'user', scope_id: 'bob', requests_per_minute: 10 },
    });
    expect(await projection(workspace)).toEqual({ version: '1000', 'budget:ws:day': 'stale' });

    await redis.hset(GovernanceKeys.projection(workspace), 'version', '0');
    expect(await service.app.get(GovernanceProjection).write(workspace)).toBe(1);
    expect(await projection(workspace)).toEqual({ version: '1', 'limit:user:bob': encodeLimitField(10, null) });

    const updated = await service.send(GovernanceAdminPatterns.updateRateLimit, {
      workspace_id: workspace,
      rate_limit_id: limit.id,
      rate_limit: { requests_per_minute: null, tokens_per_minute: 5_000 },
    });
    expect(updated).toMatchObject({ requests_per_minute: null, tokens_per_minute: 5_000 });
    expect(await projection(workspace)).toEqual({ version: '2', 'limit:user:bob': encodeLimitField(null, 5_000) });
    expect(
      await refusal(
        service.send(GovernanceAdminPatterns.updateRateLimit, {
          workspace_id: workspace,
          rate_limit_id: limit.id,
          rate_limit: { tokens_per_minute: null },
        }),
      ),
    ).toMatchObject({ code: 'validation_error', detail: 'rate_limit_needs_a_rate' });
    expect(
      await refusal(
        service.send(GovernanceAdminPatterns.createRateLimit, {
          workspace_id: workspace,
          rate_limit: { scope: 'user', scope_id: 'bob', tokens_per_minute: 1 },
        }),
      ),
    ).toMatchObject({ code: 'validation_error', detail: 'rate_limit_exists' });
    await service.send(GovernanceAdminPatterns.deleteRateLimit, { workspace_id: workspace, rate_limit_id: limit.id });
    expect(await projection(workspace)).toEqual({ version: '3' });
  });

  it('records a crossing once and delivers it once as a webhook signed with the budget secret', async () => {
    const created = await service.send(GovernanceAdminPatterns.createBudget, {
      workspace_id: workspaceId,
      budget: { scope: 'user', scope_id: 'carol', period: 'day', limit_micros: 10_000, alert_url: `${receiverUrl}/budget` },
    });
    const secret = created.webhook_secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(await service.send(GovernanceAdminPatterns.getBudget, { workspace_id: workspaceId, budget_id: created.id })).not.toHaveProperty(
      'webhook_secret',
    );
    const at = new Date().toISOString();
    const crossing: BudgetCrossing = {
      workspace_id: workspaceId,
      budget_id: created.id,
      scope: 'user',
      scope_id: 'carol',
      period: 'day',
      period_key: periodKey('day', new Date(at)),
      threshold: 100,
      event: 'budget.exceeded',
      spent_micros: 10_250,
      limit_micros: 10_000,
      at,
    };
    const sink = service.app.get<BudgetAlertSink>(BUDGET_ALERT_SINK);
    await sink.deliver([crossing]);
    await sink.deliver([crossing]);

    const [callback] = await expectEventually(() => {
      const arrived = receiver.on('/budget');
      expect(arrived).toHaveLength(1);
      return arrived;
    });
    const body = {
      event: 'budget.exceeded',
      scope: 'user',
      scope_id: 'carol',
      period: 'day',
      spent_micros: 10_250,
      limit_micros: 10_000,
      at,
    };
    expect(
      new Webhook(secret).verify(callback.body, {
        'webhook-id': String(callback.headers['webhook-id']),
        'webhook-timestamp': String(callback.headers['webhook-timestamp']),
        'webhook-signature': String(callback.headers['webhook-signature']),
      }),
    ).toEqual(body);
    const alerts = await service.send(GovernanceAdminPatterns.listBudgetAlerts, { workspace_id: workspaceId, budget_id: created.id });
    expect(alerts).toEqual([
      {
        id: expect.any(String),
        budget_id: created.id,
        event: 'budget.exceeded',
        scope: 'user',
        scope_id: 'carol',
        period: 'day',
        period_key: crossing.period_key,
        threshold: 100,
        spent_micros: 10_250,
        limit_micros: 10_000,
        at,
        delivery_id: String(callback.headers['webhook-id']),
      },
    ]);
  });
});
