import { encodeBudgetField, encodeLimitField, GovernanceKeys, type BudgetCrossing, type LedgerRecord } from '@waggle/contracts';
import { BaseEnv, loadConfig, newRequestId, WithRedis } from '@waggle/platform';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { BudgetAlertSink } from '../src/governance/budget-alert-sink';
import { GovernanceReconciler } from '../src/governance/governance-reconciler';

class ReconcileTestEnv extends WithRedis(BaseEnv) {}

class RecordingSink implements BudgetAlertSink {
  readonly delivered: BudgetCrossing[] = [];
  deliver(crossings: readonly BudgetCrossing[]): Promise<void> {
    this.delivered.push(...crossings);
    return Promise.resolve();
  }
}

const AT = new Date('2026-11-21T12:00:00Z');
const MINUTE = Math.floor(AT.getTime() / 60_000);

/**
 * The reconciliation of ended runs against the real Redis, with reservations made by the
 * gateway's admission (written here as it writes them): charged once however often a record comes, reservations and token
 * estimates released, spend per scope and period, credits, the run cost estimate, and each
 * budget threshold crossed once per period.
 */
describe('GovernanceReconciler (real Redis)', () => {
  const redis = new Redis(loadConfig(ReconcileTestEnv).REDIS_URL);
  const workspaces: string[] = [];

  /**
   * A run admitted by the gateway, as its admission script leaves it (the gateway's admission
   * spec checks that layout): its cost reserved in the workspace scope, its token estimate in
   * the key's window, and its reservation hash.
   */
  async function admitted(workspaceId: string, requestId: string, user: string, cost: number, tokens: number): Promise<void> {
    const expiry = AT.getTime() + 900_000;
    await redis.zadd(GovernanceKeys.pending(workspaceId, 'ws'), expiry, requestId);
    await redis.hset(GovernanceKeys.pendingAmounts(workspaceId, 'ws'), requestId, cost);
    await redis.hincrby(GovernanceKeys.pendingAmounts(workspaceId, 'ws'), 'total', cost);
    await redis.incrby(GovernanceKeys.window(workspaceId, 'tokens', 'key:key-1', MINUTE), tokens);
    await redis.hset(GovernanceKeys.reservation(workspaceId, requestId), {
      tokens,
      minute: MINUTE,
      key: 'key-1',
      user,
      cost,
      'cost:ws': '1',
      'tokens:key': '1',
    });
  }

  afterAll(async () => {
    const keys = (await Promise.all(workspaces.map((id) => redis.keys(`waggle:gov:{${id}}:*`)))).flat();
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  async function workspace(fields: Record<string, string> = {}): Promise<string> {
    const id = randomUUID();
    workspaces.push(id);
    await redis.hset(GovernanceKeys.projection(id), { version: '1', ...fields });
    return id;
  }

  const record = (workspaceId: string, overrides: Partial<LedgerRecord> = {}): LedgerRecord => ({
    request_id: newRequestId(),
    workspace_id: workspaceId,
    request_type: 'prompt',
    requestable_type: 'prompt_deployment',
    requestable_id: randomUUID(),
    deployment: 'd',
    variant: 'v',
    variant_id: null,
    version_id: null,
    version: 1,
    model: 'fake',
    status: 'completed',
    message: null,
    metadata: {},
    user: null,
    generated_at: AT.toISOString(),
    started_at: AT.toISOString(),
    ended_at: AT.toISOString(),
    duration_ms: 5,
    usage: { total_tokens: 40 },
    data: null,
    cost_micros: 1_000,
    api_key_id: 'key-1',
    credentials: 'hosted',
    ...overrides,
  });

  it('charges a run once however often its record comes, and releases its reservation and token estimate', async () => {
    const id = await workspace({
      'budget:ws:day': encodeBudgetField(1_000_000, 'b-ws', [100]),
      'limit:key:key-1': encodeLimitField(null, 10_000),
    });
    await redis.set(GovernanceKeys.credits(id), '5000');
    const reconciler = new GovernanceReconciler(redis, new RecordingSink());
    const run = record(id, { user: 'ann', cost_micros: 1_500 });
    await admitted(id, run.request_id, 'ann', 20_000, 300);
    expect(await redis.get(GovernanceKeys.window(id, 'tokens', 'key:key-1', MINUTE))).toBe('300');

    await reconciler.reconcile([run, { ...run, status: 'running' }], AT);
    await reconciler.reconcile([run], AT);
    await Promise.all([reconciler.reconcile([run], AT), reconciler.reconcile([run], AT)]);

    expect(await redis.get(GovernanceKeys.spend(id, 'ws', 'd20261121'))).toBe('1500');
    expect(await redis.get(GovernanceKeys.spend(id, 'ws', 'm202611'))).toBe('1500');
    expect(await redis.get(GovernanceKeys.spend(id, 'key:key-1', 'd20261121'))).toBe('1500');
    expect(await redis.get(GovernanceKeys.spend(id, 'user:ann', 'm202611'))).toBe('1500');
    expect(await redis.ttl(GovernanceKeys.spend(id, 'ws', 'd20261121'))).toBeLessThanOrEqual(3 * 86_400);
    expect(await redis.ttl(GovernanceKeys.spend(id, 'ws', 'm202611'))).toBeGreaterThan(3 * 86_400);
    expect(await redis.get(GovernanceKeys.credits(id))).toBe('3500');
    expect(await redis.get(GovernanceKeys.runCostEstimate(id))).toBe('1500');
    // The reservation is gone and the real tokens (40) replaced the estimate (300).
    expect(await redis.exists(GovernanceKeys.reservation(id, run.request_id))).toBe(0);
    expect(await redis.hget(GovernanceKeys.pendingAmounts(id, 'ws'), 'total')).toBe('0');
    expect(await redis.zcard(GovernanceKeys.pending(id, 'ws'))).toBe(0);
    expect(await redis.get(GovernanceKeys.window(id, 'tokens', 'key:key-1', MINUTE))).toBe('40');
  });

  it('leaves the credits alone for a run on the workspace’s own keys, and learns the estimate as max(cost, old × 15/16)', async () => {
    const id = await workspace();
    await redis.set(GovernanceKeys.credits(id), '5000');
    await redis.set(GovernanceKeys.runCostEstimate(id), '16000');
    const reconciler = new GovernanceReconciler(redis, new RecordingSink());
    await reconciler.reconcile([record(id, { credentials: 'workspace', cost_micros: 100 })], AT);
    expect(await redis.get(GovernanceKeys.credits(id))).toBe('5000');
    expect(await redis.get(GovernanceKeys.runCostEstimate(id))).toBe('15000');
    await reconciler.reconcile([record(id, { cost_micros: 40_000 })], AT);
    expect(await redis.get(GovernanceKeys.runCostEstimate(id))).toBe('40000');
    // A run whose cost is unknown changes no spend and no estimate.
    await reconciler.reconcile([record(id, { cost_micros: null })], AT);
    expect(await redis.get(GovernanceKeys.runCostEstimate(id))).toBe('40000');
    expect(await redis.get(GovernanceKeys.spend(id, 'ws', 'd20261121'))).toBe('40100');
  });

  it('hands each threshold a budget crosses to the sink once per period', async () => {
    const id = await workspace({
      'budget:ws:day': encodeBudgetField(10_000, 'b-day', [50, 80, 100]),
      'budget:user:ann:month': encodeBudgetField(100_000, 'b-user', [80, 100]),
    });
    const sink = new RecordingSink();
    const reconciler = new GovernanceReconciler(redis, sink);
    await reconciler.reconcile([record(id, { cost_micros: 4_000 })], AT);
    expect(sink.delivered).toEqual([]);
    // 4000 → 9000 crosses 50% and 80%; the two runs of one batch go in one round trip.
    await reconciler.reconcile([record(id, { cost_micros: 2_500 }), record(id, { cost_micros: 2_500, user: 'ann' })], AT);
    expect(sink.delivered.map((crossing) => [crossing.budget_id, crossing.threshold, crossing.event])).toEqual([
      ['b-day', 50, 'budget.threshold_crossed'],
      ['b-day', 80, 'budget.threshold_crossed'],
    ]);
    await reconciler.reconcile([record(id, { cost_micros: 2_000 })], AT);
    expect(sink.delivered[2]).toEqual({
      workspace_id: id,
      budget_id: 'b-day',
      scope: 'workspace',
      scope_id: null,
      period: 'day',
      period_key: 'd20261121',
      threshold: 100,
      event: 'budget.exceeded',
      spent_micros: 11_000,
      limit_micros: 10_000,
      at: AT.toISOString(),
    });
    // Past every threshold: nothing more this period; the spend of the user crossed nothing yet.
    await reconciler.reconcile([record(id, { cost_micros: 90_000, user: 'ann' })], AT);
    expect(sink.delivered.slice(3).map((crossing) => [crossing.budget_id, crossing.scope, crossing.scope_id, crossing.threshold])).toEqual([
      ['b-user', 'user', 'ann', 80],
    ]);
    // Another day: the day's budget alerts again.
    const tomorrow = new Date('2026-11-22T08:00:00Z').toISOString();
    await reconciler.reconcile([record(id, { cost_micros: 6_000, generated_at: tomorrow })], AT);
    expect(sink.delivered.slice(4).map((crossing) => [crossing.period_key, crossing.threshold])).toEqual([['d20261122', 50]]);
  });

  it('throws when Redis fails, so the batch comes back, and charges once when it does', async () => {
    const id = await workspace();
    // A Redis that is not there: nothing listens on port 1.
    const broken = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const run = record(id, { cost_micros: 700 });
    try {
      await expect(new GovernanceReconciler(broken, new RecordingSink()).reconcile([run], AT)).rejects.toThrow();
    } finally {
      broken.disconnect();
    }
    const reconciler = new GovernanceReconciler(redis, new RecordingSink());
    await reconciler.reconcile([run], AT);
    await reconciler.reconcile([run], AT);
    expect(await redis.get(GovernanceKeys.spend(id, 'ws', 'd20261121'))).toBe('700');
  });
});
