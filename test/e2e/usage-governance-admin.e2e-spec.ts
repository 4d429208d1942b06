import type { BudgetView, BudgetWritten, RateLimitView } from '@waggle/contracts';
import { GovernanceKeys, periodKey } from '@waggle/contracts';
import { cliJson, freePort, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { TEST_REDIS_URL } from '../setup/test-env';

/**
 * Usage governance's administration over HTTP (the spec's decisions on usage governance), as a
 * client calls it: gateway, invocation service (budgets, rate limits, the Redis projection), the
 * catalog (API keys, plans), and the operator CLI. Credits and spend read the request ledger's
 * cost columns: usage-governance-enforcement.e2e-spec.ts.
 */
describe('usage governance administration: /v1/private/budgets, rate_limits, budget_alerts and the CLI', () => {
  const apps: AppProcess[] = [];
  const redis = new Redis(TEST_REDIS_URL);
  let gateway: AppProcess;
  let key: string;
  let otherKey: string;
  let workspaceId: string;
  let keyId: string;

  const request = async (method: string, path: string, body?: unknown, apiKey = key) => {
    const response = await fetch(`${gateway.baseUrl}/v1/private${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
  };

  beforeAll(async () => {
    const env = { LOG_LEVEL: 'warn', CALLBACK_URL_ALLOWLIST: '127.0.0.1' };
    apps.push(spawnApp('catalog', await freePort(), env), spawnApp('invocation', await freePort(), env));
    gateway = spawnApp('gateway', await freePort(), env);
    apps.push(gateway);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e governance']);
    key = created.api_key;
    workspaceId = created.workspace_id;
    otherKey = (await cliJson<{ api_key: string }>(['workspace', 'create', '--name', 'e2e governance other'])).api_key;
    keyId = (await cliJson<Array<{ id: string }>>(['key', 'list', workspaceId]))[0].id;
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    redis.disconnect();
  });

  it('creates a budget (201), answers its webhook secret once, reads its spend this period, updates and deletes it', async () => {
    const created = await request('POST', '/budgets', {
      scope: 'api_key',
      scope_id: keyId,
      period: 'day',
      limit_micros: 2_000_000,
      alert_url: 'http://127.0.0.1:9/alerts',
    });
    expect(created.status).toBe(201);
    const budget = created.body as unknown as BudgetWritten;
    expect(Object.keys(budget)).toEqual([
      'id',
      'scope',
      'scope_id',
      'period',
      'limit_micros',
      'thresholds',
      'alert_url',
      'spent_micros',
      'period_resets_at',
      'created_at',
      'updated_at',
      'webhook_secret',
    ]);
    expect(budget).toMatchObject({ scope: 'api_key', scope_id: keyId, thresholds: [80, 100], spent_micros: 0 });
    expect(budget.webhook_secret).toMatch(/^whsec_/);

    await redis.set(GovernanceKeys.spend(workspaceId, `key:${keyId}`, periodKey('day', new Date())), '1234');
    const read = await request('GET', `/budgets/${budget.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('webhook_secret');
    expect(read.body).toMatchObject({ spent_micros: 1234 });
    const listed = await request('GET', '/budgets');
    expect((listed.body?.budgets as BudgetView[]).map((item) => item.id)).toEqual([budget.id]);

    const updated = await request('PATCH', `/budgets/${budget.id}`, { limit_micros: 3_000_000, thresholds: [100, 90], alert_url: null });
    expect(updated).toMatchObject({ status: 200, body: { limit_micros: 3_000_000, thresholds: [90, 100], alert_url: null } });
    expect(updated.body).not.toHaveProperty('webhook_secret');

    expect(await request('GET', `/budgets/${budget.id}`, undefined, otherKey)).toEqual({
      status: 404,
      body: { error: 'Budget not found', message: 'Budget not found', error_code: 'resource_not_found', code: 'resource_not_found' },
    });
    expect(await request('DELETE', `/budgets/${budget.id}`)).toEqual({ status: 200, body: { message: 'Budget deleted successfully' } });
    expect((await request('GET', `/budgets/${budget.id}`)).status).toBe(404);
    expect((await request('GET', '/budgets/not-a-uuid')).status).toBe(404);
  });

  it('refuses bad budgets with the catalog shape: fields, a foreign key id, a refused URL, a duplicate, and non-JSON', async () => {
    for (const [body, field] of [
      [{ scope: 'team', period: 'day', limit_micros: 1 }, 'scope'],
      [{ scope: 'workspace', scope_id: 'x', period: 'day', limit_micros: 1 }, 'scope_id'],
      [{ scope: 'user', scope_id: '', period: 'day', limit_micros: 1 }, 'scope_id'],
      [{ scope: 'workspace', period: 'year', limit_micros: 1 }, 'period'],
      [{ scope: 'workspace', period: 'day', limit_micros: -5 }, 'limit_micros'],
      [{ scope: 'workspace', period: 'day', limit_micros: 1, thresholds: [0] }, 'thresholds'],
      [{ scope: 'workspace', period: 'day', limit_micros: 1, extra: true }, 'extra'],
      [{ scope: 'api_key', scope_id: randomUUID(), period: 'day', limit_micros: 1 }, 'scope_id'],
      [{ scope: 'user', scope_id: 'ann', period: 'day', limit_micros: 1, alert_url: 'http://169.254.169.254/' }, 'alert_url'],
    ] as const) {
      const answer = await request('POST', '/budgets', body);
      expect({ field, status: answer.status, code: answer.body?.error_code }).toEqual({ field, status: 422, code: 'validation_error' });
      expect(answer.body).toMatchObject({ error: expect.any(String), message: expect.any(String), code: 'validation_error' });
      expect(answer.body?.details).toEqual([expect.objectContaining({ field: expect.stringMatching(new RegExp(`^${field}`)) })]);
    }
    expect((await request('POST', '/budgets', { scope: 'workspace', period: 'month', limit_micros: 9 })).status).toBe(201);
    const duplicate = await request('POST', '/budgets', { scope: 'workspace', period: 'month', limit_micros: 10 });
    expect(duplicate).toMatchObject({ status: 422, body: { error_code: 'validation_error', details: [{ field: 'scope' }] } });
    expect(duplicate.body?.message).toMatch(/^A budget for this scope and period already exists: /);
    expect((await request('POST', '/budgets', '{"scope":')).status).toBe(400);
    expect((await request('GET', '/budgets', undefined, 'wgl_not-a-key')).status).toBe(401);
  });

  it('creates, reads, updates and deletes rate limits, with at least one rate', async () => {
    const created = await request('POST', '/rate_limits', { scope: 'user', scope_id: 'ann', requests_per_minute: 60 });
    expect(created.status).toBe(201);
    const limit = created.body as unknown as RateLimitView;
    expect(limit).toMatchObject({ scope: 'user', scope_id: 'ann', requests_per_minute: 60, tokens_per_minute: null });
    expect(await request('GET', `/rate_limits/${limit.id}`)).toEqual({ status: 200, body: limit });
    expect((await request('GET', '/rate_limits')).body).toEqual({ rate_limits: [limit] });
    expect(await request('PATCH', `/rate_limits/${limit.id}`, { requests_per_minute: null, tokens_per_minute: 9_000 })).toMatchObject({
      status: 200,
      body: { requests_per_minute: null, tokens_per_minute: 9_000 },
    });
    expect(await request('PATCH', `/rate_limits/${limit.id}`, { tokens_per_minute: null })).toMatchObject({
      status: 422,
      body: { error_code: 'validation_error', message: 'A rate limit needs requests_per_minute, tokens_per_minute or both' },
    });
    expect(await request('POST', '/rate_limits', { scope: 'user', scope_id: 'bob' })).toMatchObject({
      status: 422,
      body: { error_code: 'validation_error' },
    });
    expect(await request('POST', '/rate_limits', { scope: 'workspace', scope_id: 'bob', requests_per_minute: 1 })).toMatchObject({
      status: 422,
    });
    expect((await request('DELETE', `/rate_limits/${limit.id}`, undefined, otherKey)).status).toBe(404);
    expect(await request('DELETE', `/rate_limits/${limit.id}`)).toEqual({
      status: 200,
      body: { message: 'Rate limit deleted successfully' },
    });
    expect((await request('GET', '/rate_limits')).body).toEqual({ rate_limits: [] });
  });

  it('lists budget alerts (none yet) and refuses a bad filter; documents every route in the OpenAPI document', async () => {
    expect(await request('GET', '/budget_alerts')).toEqual({ status: 200, body: { budget_alerts: [] } });
    expect((await request('GET', '/budget_alerts?budget_id=nope')).status).toBe(422);
    const document = (await (await fetch(`${gateway.baseUrl}/v1/public/openapi.json`)).json()) as { paths: Record<string, object> };
    for (const path of [
      '/v1/private/budgets',
      '/v1/private/budgets/{id}',
      '/v1/private/budget_alerts',
      '/v1/private/rate_limits',
      '/v1/private/rate_limits/{id}',
      '/v1/private/credits',
      '/v1/private/spend',
    ])
      expect(Object.keys(document.paths)).toContain(path);
    expect(Object.keys(document.paths['/v1/private/credits'])).toEqual(['get']);
  });

  it('manages budgets and rate limits from the CLI, and sets a plan’s hosted credits', async () => {
    const created = await cliJson<BudgetWritten>([
      'budget',
      'create',
      workspaceId,
      '--scope',
      'user',
      '--scope-id',
      'cli-user',
      '--period',
      'day',
      '--limit-micros',
      '700',
      '--thresholds',
      '50,100',
    ]);
    expect(created).toMatchObject({ scope: 'user', scope_id: 'cli-user', limit_micros: 700, thresholds: [50, 100] });
    expect((await cliJson<BudgetView>(['budget', 'show', workspaceId, created.id])).id).toBe(created.id);
    expect(await cliJson<BudgetView>(['budget', 'update', workspaceId, created.id, '--limit-micros', '800'])).toMatchObject({
      limit_micros: 800,
    });
    expect((await cliJson<BudgetView[]>(['budget', 'list', workspaceId])).map((budget) => budget.id)).toContain(created.id);
    expect(await cliJson(['budget', 'delete', workspaceId, created.id, '--yes'])).toEqual({ id: created.id });

    const limit = await cliJson<RateLimitView>([
      'rate-limit',
      'create',
      workspaceId,
      '--scope',
      'api_key',
      '--scope-id',
      keyId,
      '--tokens-per-minute',
      '5000',
    ]);
    expect(limit).toMatchObject({ scope: 'api_key', scope_id: keyId, requests_per_minute: null, tokens_per_minute: 5000 });
    expect(await cliJson<RateLimitView>(['rate-limit', 'update', workspaceId, limit.id, '--requests-per-minute', '30'])).toMatchObject({
      requests_per_minute: 30,
      tokens_per_minute: 5000,
    });
    expect(await cliJson(['rate-limit', 'delete', workspaceId, limit.id, '--yes'])).toEqual({ id: limit.id });
    expect(await cliJson(['budget-alerts', workspaceId])).toEqual([]);

    const plan = await cliJson<{ key: string; hosted_credits: boolean }>(['plan', 'set', 'lite', '--hosted-credits', 'true']);
    expect(plan).toMatchObject({ key: 'lite', hosted_credits: true });
    expect(await cliJson(['plan', 'set', 'lite', '--hosted-credits', 'false'])).toMatchObject({ hosted_credits: false });
  });
});
