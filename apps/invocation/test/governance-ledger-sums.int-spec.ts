import { CatalogPatterns, GovernanceAdminPatterns, GovernanceKeys, GovernancePatterns, periodKey, send } from '@waggle/contracts';
import { freePort, spawnApp, startServiceUnderTest, waitUntilLive, type AppProcess, type ServiceUnderTest } from '@waggle/testing';
import Redis from 'ioredis';
import { Client } from 'pg';
import { bootstrap } from '../src/bootstrap';

/**
 * What usage governance reads from the request ledger's cost columns (`cost_micros`,
 * `api_key_id`, `credentials`, added by the cost feature's migration): the projection loader's
 * seeding of the credit balance and the budgets' period spend (SET NX: what Redis holds wins),
 * the credits read and the operator's top-up, and spend per group.
 */
describe('invocation service over NATS: credits, spend and the projection loader over the request ledger', () => {
  const apps: AppProcess[] = [];
  const redis = new Redis(process.env.REDIS_URL as string);
  const database = new Client({ connectionString: process.env.DATABASE_URL });
  let service: ServiceUnderTest;
  let workspaceId: string;
  let keyId: string;
  const now = new Date();
  const today = now.toISOString().slice(0, 10);

  /** A finished run of the workspace with its cost, key, user and credentials. */
  const run = async (
    index: number,
    cost: number,
    extra: { key?: string | null; user?: string | null; credentials?: string | null; model?: string },
  ) =>
    database.query(
      `INSERT INTO "invocation"."requests" ("id", "workspace_id", "request_type", "requestable_type", "requestable_id", "status", "generated_at",
         "model", "user_label", "cost_micros", "api_key_id", "credentials")
       VALUES ($1, $2, 'prompt', 'prompt_variant', gen_random_uuid(), 'completed', $3, $4, $5, $6, $7, $8)`,
      [
        `req_${workspaceId.replace(/-/g, '')}`.slice(0, 28) + String(index).padStart(8, '0'),
        workspaceId,
        now,
        extra.model ?? 'gpt-6-luna',
        extra.user ?? null,
        cost,
        extra.key ?? null,
        extra.credentials ?? null,
      ],
    );

  beforeAll(async () => {
    const catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    apps.push(catalog);
    await waitUntilLive(catalog);
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    await database.connect();
    const created = await send(service.rpc, CatalogPatterns.createWorkspace, { name: 'governance ledger sums' });
    workspaceId = created.workspace.id;
    keyId = created.api_key.id;
    await run(1, 100, { key: keyId, user: 'ann', credentials: 'hosted' });
    await run(2, 250, { key: keyId, user: 'bob', credentials: 'workspace', model: 'gpt-6-sol' });
    await run(3, 50, { key: null, user: 'ann', credentials: 'hosted' });
  });

  afterAll(async () => {
    await service?.stop();
    await Promise.all(apps.map((app) => app.stop()));
    await database.end();
    redis.disconnect();
  });

  it('loads the projection and seeds the balance and the period spend only where Redis has none', async () => {
    const workspaceBudget = await service.send(GovernanceAdminPatterns.createBudget, {
      workspace_id: workspaceId,
      budget: { scope: 'workspace', period: 'month', limit_micros: 10_000 },
    });
    await service.send(GovernanceAdminPatterns.createBudget, {
      workspace_id: workspaceId,
      budget: { scope: 'user', scope_id: 'ann', period: 'day', limit_micros: 10_000 },
    });
    const dayOfAnn = GovernanceKeys.spend(workspaceId, 'user:ann', periodKey('day', now));
    await redis.set(dayOfAnn, '7');
    await redis.del(GovernanceKeys.projection(workspaceId), GovernanceKeys.credits(workspaceId));

    expect(await service.send(GovernancePatterns.loadProjection, { workspace_id: workspaceId })).toEqual({ version: 2 });
    expect(await redis.hget(GovernanceKeys.projection(workspaceId), `budget:ws:month`)).toMatch(
      new RegExp(`^10000\\|${workspaceBudget.id}\\|`),
    );
    expect(await redis.get(GovernanceKeys.credits(workspaceId))).toBe('-150');
    expect(await redis.get(GovernanceKeys.spend(workspaceId, 'ws', periodKey('month', now)))).toBe('400');
    expect(await redis.ttl(GovernanceKeys.spend(workspaceId, 'ws', periodKey('month', now)))).toBeGreaterThan(39 * 24 * 3600);
    expect(await redis.get(dayOfAnn)).toBe('7');
  });

  it('shows the credits and adds the operator’s top-up to the balance Redis holds', async () => {
    await redis.set(GovernanceKeys.credits(workspaceId), '-150');
    const topped = await service.send(GovernanceAdminPatterns.addCredits, {
      workspace_id: workspaceId,
      amount_micros: 1_000,
      kind: 'top_up',
      note: 'first',
    });
    expect(topped).toMatchObject({
      balance_micros: 850,
      applies: false,
      entries: [{ amount_micros: 1_000, kind: 'top_up', note: 'first' }],
    });
    await redis.del(GovernanceKeys.credits(workspaceId));
    expect((await service.send(GovernanceAdminPatterns.showCredits, { workspace_id: workspaceId })).balance_micros).toBe(850);
    expect(await redis.get(GovernanceKeys.credits(workspaceId))).toBeNull();
  });

  it('sums spend and runs per day, model, API key and user', async () => {
    const spend = (group_by: 'day' | 'model' | 'api_key' | 'user') =>
      service.send(GovernanceAdminPatterns.spend, { workspace_id: workspaceId, group_by, from: today, to: today });
    expect(await spend('day')).toEqual({
      group_by: 'day',
      from: today,
      to: today,
      total_cost_micros: 400,
      total_runs: 3,
      groups: [{ key: today, cost_micros: 400, runs: 3 }],
    });
    expect((await spend('model')).groups).toEqual([
      { key: 'gpt-6-sol', cost_micros: 250, runs: 1 },
      { key: 'gpt-6-luna', cost_micros: 150, runs: 2 },
    ]);
    expect((await spend('api_key')).groups).toEqual([
      { key: keyId, cost_micros: 350, runs: 2 },
      { key: null, cost_micros: 50, runs: 1 },
    ]);
    expect((await spend('user')).groups).toEqual([
      { key: 'bob', cost_micros: 250, runs: 1 },
      { key: 'ann', cost_micros: 150, runs: 2 },
    ]);
  });
});
