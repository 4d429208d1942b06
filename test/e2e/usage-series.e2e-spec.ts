import type { AppliedDeployment, DeliverySummary, UsageSeriesView } from '@waggle/contracts';
import {
  CallbackReceiver,
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
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PROMPTS = `
prompts:
  - deployment: series-answers
    variants:
      - name: default
        model: fake-series-chat
        messages: [ { role: user, content: "{{ question }}" } ]
      - name: broken
        model: fake-series-broken
        messages: [ { role: user, content: "{{ question }}" } ]
`;

/** What the priced fake model reports: 1000 prompt tokens (400 cached), 300 completion tokens. */
const USAGE = { promptTokens: 1000, cachedTokens: 400, reasoningTokens: 0, completionTokens: 300 };
/** At FAKE_MODEL_PRICING (input 1, cached 0.1, output 4 USD per million): 600 + 40 + 1200 micro-USD. */
const RUN_COST = 600 + 40 + 1_200;

/**
 * `GET /v1/private/usage/series` (the request ledger over time, per model or artifact) and the
 * delivery log's `before` cursor, through the whole stack: each workspace sees its own runs and
 * deliveries only, a range past the bound is a catalog 422.
 */
describe('usage series and the delivery log cursor', () => {
  const fake = new FakeProviderServer({});
  const receiver = new CallbackReceiver();
  const apps: AppProcess[] = [];
  let gateway: string;
  let receiverUrl: string;
  const workspaces: Array<{ workspace_id: string; api_key: string; applied: AppliedDeployment }> = [];

  const get = async <T>(key: string, path: string): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as T };
  };
  const invoke = async (key: string, variant: string) =>
    fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ deployment: 'series-answers', variant, inputs: { question: 'q' } }),
    });
  const trigger = async (applied: AppliedDeployment, path: string) => {
    const variant = applied.variants.find((candidate) => candidate.name === 'default');
    const response = await fetch(`${gateway}/v1/prompt/webhooks/${applied.prompt_endpoint_id}/variants/${variant?.variant_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-webhook-secret': applied.webhook_secret },
      body: JSON.stringify({ inputs: { question: 'q' }, async: { callback_url: `${receiverUrl}${path}` } }),
    });
    expect(response.status).toBe(202);
  };
  const range = () => {
    const to = new Date(Date.now() + 3600_000).toISOString();
    const from = new Date(Date.now() - 3600_000).toISOString();
    return `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
  };

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    fake.setModel('fake-series-chat', { response: 'an answer', usage: USAGE });
    fake.setModel('fake-series-broken', { error: { status: 500, message: 'upstream exploded' } });
    receiverUrl = await receiver.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    apps.push(
      spawnApp('catalog', await freePort(), env),
      spawnApp('invocation', await freePort(), env),
      spawnApp('callback-dispatcher', await freePort(), { LOG_LEVEL: 'warn', CALLBACK_URL_ALLOWLIST: '127.0.0.1' }),
    );
    const gatewayApp = spawnApp('gateway', await freePort(), { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    apps.push(gatewayApp);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;
    await loadCatalogWithFakeModels('2099.12.41', [
      fakeModel('fake-series-chat', { reasoning: false }),
      fakeModel('fake-series-broken', { reasoning: false }),
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-series-')), 'prompts.yaml');
    writeFileSync(file, PROMPTS);
    for (const name of ['e2e series', 'e2e series other']) {
      const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', name]);
      const [applied] = await cliJson<AppliedDeployment[]>(['apply', '-f', file, '--workspace', created.workspace_id]);
      workspaces.push({ ...created, applied });
    }
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await receiver.stop();
    await fake.stop();
  });

  it("sums each workspace's own runs per hour and model: requests, failures, tokens, cost, p95 latency", async () => {
    const [first, second] = workspaces;
    for (let i = 0; i < 3; i += 1) expect((await invoke(first.api_key, 'default')).status).toBe(200);
    expect((await invoke(first.api_key, 'broken')).status).toBeGreaterThanOrEqual(500);
    expect((await invoke(second.api_key, 'default')).status).toBe(200);

    const series = await expectEventually(async () => {
      const { status, body } = await get<UsageSeriesView>(first.api_key, `/v1/private/usage/series?${range()}&group_by=model`);
      expect(status).toBe(200);
      expect(body.totals).toMatchObject({ requests: 4, failed: 1, queued: 0, running: 0 });
      return body;
    });
    expect(series.bucket).toBe('hour');
    expect(series.group_by).toBe('model');
    expect(series.totals).toEqual({
      requests: 4,
      failed: 1,
      queued: 0,
      running: 0,
      input_tokens: 3 * USAGE.promptTokens,
      output_tokens: 3 * USAGE.completionTokens,
      total_tokens: 3 * (USAGE.promptTokens + USAGE.completionTokens),
      cost_micros: 3 * RUN_COST,
      p95_latency_ms: expect.any(Number),
    });
    // The runs fall in one or two hours (the test may cross one); per model, the sums agree with the totals.
    const byModel = (model: string) => series.points.filter((point) => point.key === model);
    expect(byModel('fake-series-chat').reduce((sum, point) => sum + point.requests, 0)).toBe(3);
    expect(byModel('fake-series-broken').reduce((sum, point) => sum + point.failed, 0)).toBe(1);
    expect(byModel('fake-series-broken').reduce((sum, point) => sum + point.cost_micros, 0)).toBe(0);
    expect(series.points.every((point) => !point.other && Date.parse(point.bucket) % 3600_000 === 0)).toBe(true);

    // By artifact, by day, and without a group: the same runs.
    const { body: byArtifact } = await get<UsageSeriesView>(
      first.api_key,
      `/v1/private/usage/series?${range()}&group_by=artifact&bucket=day`,
    );
    expect(byArtifact.points.map((point) => point.key)).toEqual(byArtifact.points.map(() => first.applied.prompt_endpoint_id));
    expect(byArtifact.totals.requests).toBe(4);
    const { body: plain } = await get<UsageSeriesView>(first.api_key, `/v1/private/usage/series?${range()}`);
    expect(plain.points.every((point) => point.key === null)).toBe(true);
    expect(plain.points.reduce((sum, point) => sum + point.requests, 0)).toBe(4);

    // The other workspace sees its one run only.
    const other = await expectEventually(async () => {
      const { body } = await get<UsageSeriesView>(second.api_key, `/v1/private/usage/series?${range()}`);
      expect(body.totals.requests).toBe(1);
      return body;
    });
    expect(other.totals).toMatchObject({ failed: 0, cost_micros: RUN_COST });
  });

  it('refuses a reversed range, one over 744 buckets and an unknown bucket or group with the catalog 422', async () => {
    const [first] = workspaces;
    for (const query of [
      'from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z',
      'from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:01Z',
      'from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z&bucket=day',
      'bucket=week',
      'group_by=user',
      'from=yesterday',
    ]) {
      const { status, body } = await get<{ error_code: string; details: Array<{ field: string }> }>(
        first.api_key,
        `/v1/private/usage/series?${query}`,
      );
      expect({ query, status, code: body.error_code }).toEqual({ query, status: 422, code: 'validation_error' });
      expect(body.details.length).toBeGreaterThan(0);
    }
    // 744 hours is the bound itself.
    expect((await get(first.api_key, '/v1/private/usage/series?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z')).status).toBe(200);
  });

  it('pages the delivery log with a before cursor, newest first, and another workspace’s cursor gives an empty page', async () => {
    const [first, second] = workspaces;
    for (const path of ['/one', '/two', '/three']) await trigger(first.applied, path);
    const all = await expectEventually(async () => {
      const { body } = await get<{ deliveries: DeliverySummary[] }>(first.api_key, '/v1/private/deliveries?status=succeeded');
      expect(body.deliveries).toHaveLength(3);
      return body.deliveries;
    });
    const { body: firstPage } = await get<{ deliveries: DeliverySummary[] }>(first.api_key, '/v1/private/deliveries?limit=2');
    expect(firstPage.deliveries.map((delivery) => delivery.delivery_id)).toEqual(all.slice(0, 2).map((delivery) => delivery.delivery_id));
    const { body: next } = await get<{ deliveries: DeliverySummary[] }>(
      first.api_key,
      `/v1/private/deliveries?limit=2&before=${firstPage.deliveries[1].delivery_id}`,
    );
    expect(next.deliveries.map((delivery) => delivery.delivery_id)).toEqual([all[2].delivery_id]);
    expect(next.deliveries[0].attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200 })]);

    const { status, body: foreign } = await get<{ deliveries: DeliverySummary[] }>(
      second.api_key,
      `/v1/private/deliveries?before=${all[0].delivery_id}`,
    );
    expect(status).toBe(200);
    expect(foreign.deliveries).toEqual([]);
    expect((await get<{ deliveries: DeliverySummary[] }>(second.api_key, '/v1/private/deliveries')).body.deliveries).toEqual([]);
  });
});
