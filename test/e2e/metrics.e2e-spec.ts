import { APP_NAMES, QueueNames, type AppliedDeployment, type AppName } from '@waggle/contracts';
import {
  CallbackReceiver,
  cliJson,
  dashboardExpressions,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  histogramCount,
  labelSets,
  loadCatalogWithFakeModels,
  metricNamesIn,
  readGrafanaDashboard,
  sampleSum,
  scrapeMetrics,
  spawnApp,
  waitUntilLive,
  type AppProcess,
  type PromMetrics,
} from '@waggle/testing';
import { waggleVersion } from '@waggle/telemetry';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_REDIS_URL } from '../setup/test-env';

const PROMPTS = `
prompts:
  - deployment: measured
    variants:
      - name: default
        model: fake-metrics-chat
        messages:
          - { role: user, content: "{{ question }}" }
      - name: broken
        model: fake-metrics-broken
        messages:
          - { role: user, content: "{{ question }}" }
`;

/** Which app reads which queue's gauges: the one running its worker. */
const QUEUE_OWNERS: Record<string, AppName> = {
  [QueueNames.promptRuns]: 'invocation',
  [QueueNames.workflowRuns]: 'invocation',
  [QueueNames.agentRuns]: 'agent',
  [QueueNames.knowledgeBaseIngest]: 'knowledge-base',
  [QueueNames.knowledgeBaseCleanup]: 'knowledge-base',
  [QueueNames.callbacks]: 'callback-dispatcher',
};

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'dead_lettered'];

/**
 * `/metrics` on every app of a running stack, scraped over HTTP as Prometheus would and parsed
 * by a library: the series exist on the apps that own them and move under real requests.
 */
describe('Prometheus metrics on every app', () => {
  const fake = new FakeProviderServer({ latencyMs: 5 });
  const receiver = new CallbackReceiver();
  const apps = new Map<AppName, AppProcess>();
  let metricsPort: number;
  let gateway: string;
  let key: string;
  let workspaceId: string;
  let measured: AppliedDeployment;
  let receiverUrl: string;

  const app = (name: AppName): AppProcess => {
    const process = apps.get(name);
    if (!process) throw new Error(`${name} is not running`);
    return process;
  };
  const metricsUrl = (name: AppName) => (name === 'gateway' ? `http://127.0.0.1:${metricsPort}/metrics` : `${app(name).baseUrl}/metrics`);
  const scrape = (name: AppName): Promise<PromMetrics> => scrapeMetrics(metricsUrl(name));
  const invoke = (variant: string) =>
    fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ deployment: 'measured', variant, inputs: { question: 'How many?' } }),
    });

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    fake.setModel('fake-metrics-broken', { error: { status: 500, message: 'upstream exploded' } });
    receiverUrl = await receiver.start();
    metricsPort = await freePort();
    const env = {
      LOG_LEVEL: 'warn',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: 'fake-key',
      CALLBACK_URL_ALLOWLIST: '127.0.0.1',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=e2e-metrics,k8s.namespace.name=waggle-e2e',
    };
    await Promise.all(
      APP_NAMES.map(async (name) => {
        const process = spawnApp(name, await freePort(), name === 'gateway' ? { ...env, METRICS_PORT: String(metricsPort) } : env);
        apps.set(name, process);
        await waitUntilLive(process);
      }),
    );
    gateway = app('gateway').baseUrl;
    await loadCatalogWithFakeModels('2099.9.1', [
      fakeModel('fake-metrics-chat', { reasoning: false }),
      fakeModel('fake-metrics-broken', { reasoning: false }),
    ]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e metrics']);
    key = created.api_key;
    workspaceId = created.workspace_id;
    const prompts = join(mkdtempSync(join(tmpdir(), 'waggle-metrics-')), 'prompts.yaml');
    writeFileSync(prompts, PROMPTS);
    const applied = await cliJson<AppliedDeployment[]>(['apply', '-f', prompts, '--workspace', workspaceId]);
    measured = applied.find((deployment) => deployment.deployment === 'measured') as AppliedDeployment;
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all([...apps.values()].map((process) => process.stop()));
    await Promise.all([fake.stop(), receiver.stop()]);
  });

  it('serves the text format on every service port and on METRICS_PORT, never on the public port', async () => {
    for (const name of APP_NAMES) {
      const response = await fetch(metricsUrl(name));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    }
    const publicScrape = await fetch(`${gateway}/metrics`);
    expect(publicScrape.status).toBe(404);
    expect(await publicScrape.text()).not.toContain('# TYPE');
  });

  it('carries service.name, service.version and OTEL_RESOURCE_ATTRIBUTES in target_info, and the process series, on every app', async () => {
    for (const name of APP_NAMES) {
      const metrics = await scrape(name);
      expect(labelSets(metrics, 'target_info')).toEqual([
        expect.objectContaining({
          service_name: `waggle-${name}`,
          service_version: waggleVersion(),
          deployment_environment_name: 'e2e-metrics',
          k8s_namespace_name: 'waggle-e2e',
        }),
      ]);
      expect(sampleSum(metrics, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(sampleSum(metrics, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
      expect(sampleSum(metrics, 'process_start_time_seconds')).toBeGreaterThan(Date.now() / 1000 - 3600);
      expect(metrics.nodejs_eventloop_delay_p99?.type).toBe('gauge');
      expect(sampleSum(metrics, 'v8js_memory_heap_used')).toBeGreaterThan(0);
      // Every app publishes run records, so every app reports what the ledger stream has not taken.
      expect(metrics.waggle_ledger_pending_records?.data).toHaveLength(1);
      expect(metrics.waggle_ledger_lag_seconds?.data).toHaveLength(1);
    }
  });

  it('moves the HTTP, RPC, provider latency and token series under a prompt invoke', async () => {
    const [gatewayBefore, invocationBefore] = await Promise.all([scrape('gateway'), scrape('invocation')]);
    const route = { http_request_method: 'POST', http_route: '/v1/prompt/invoke', http_response_status_code: '200' };
    const rpc = { rpc_pattern: 'invocation.prompts.invoke', outcome: 'ok' };
    const model = { provider: 'fake', model: 'fake-metrics-chat' };

    const response = await invoke('default');
    expect(response.status).toBe(200);
    const { usage } = (await response.json()) as {
      usage: { prompt_tokens: { total_tokens: number }; completion_tokens: { total_tokens: number } };
    };
    expect(usage.prompt_tokens.total_tokens).toBeGreaterThan(0);

    await expectEventually(async () => {
      const [gatewayAfter, invocationAfter] = await Promise.all([scrape('gateway'), scrape('invocation')]);
      expect(histogramCount(gatewayAfter, 'http_server_request_duration_seconds', route)).toBe(
        histogramCount(gatewayBefore, 'http_server_request_duration_seconds', route) + 1,
      );
      expect(histogramCount(gatewayAfter, 'waggle_rpc_client_duration_seconds', rpc)).toBe(
        histogramCount(gatewayBefore, 'waggle_rpc_client_duration_seconds', rpc) + 1,
      );
      expect(histogramCount(invocationAfter, 'waggle_rpc_server_duration_seconds', rpc)).toBe(
        histogramCount(invocationBefore, 'waggle_rpc_server_duration_seconds', rpc) + 1,
      );
      expect(histogramCount(invocationAfter, 'waggle_provider_request_duration_seconds', { ...model, outcome: 'ok' })).toBe(
        histogramCount(invocationBefore, 'waggle_provider_request_duration_seconds', { ...model, outcome: 'ok' }) + 1,
      );
      // Exactly the tokens the response reported.
      expect(sampleSum(invocationAfter, 'waggle_provider_tokens_total', { ...model, type: 'input' })).toBe(
        sampleSum(invocationBefore, 'waggle_provider_tokens_total', { ...model, type: 'input' }) + usage.prompt_tokens.total_tokens,
      );
      expect(sampleSum(invocationAfter, 'waggle_provider_tokens_total', { ...model, type: 'output' })).toBe(
        sampleSum(invocationBefore, 'waggle_provider_tokens_total', { ...model, type: 'output' }) + usage.completion_tokens.total_tokens,
      );
    });
  });

  it('labels an unrouted path as one route, whatever the URL', async () => {
    const unknown = { http_route: 'unknown', http_response_status_code: '404' };
    const before = histogramCount(await scrape('gateway'), 'http_server_request_duration_seconds', unknown);
    for (const path of ['/no/such/path', `/v1/nothing-${Date.now()}`]) expect((await fetch(`${gateway}${path}`)).status).toBe(404);
    await expectEventually(async () => {
      const after = await scrape('gateway');
      expect(histogramCount(after, 'http_server_request_duration_seconds', unknown)).toBe(before + 2);
      expect(labelSets(after, 'http_server_request_duration_seconds').some((labels) => labels.http_route.includes('nothing'))).toBe(false);
    });
  });

  it('counts a provider failure by provider, model and error code', async () => {
    const model = { provider: 'fake', model: 'fake-metrics-broken' };
    const before = await scrape('invocation');
    const response = await invoke('broken');
    expect(response.status).toBeGreaterThanOrEqual(500);
    await expectEventually(async () => {
      const after = await scrape('invocation');
      expect(sampleSum(after, 'waggle_provider_errors_total', { ...model, error_code: 'provider_error' })).toBe(
        sampleSum(before, 'waggle_provider_errors_total', { ...model, error_code: 'provider_error' }) + 1,
      );
      expect(histogramCount(after, 'waggle_provider_request_duration_seconds', { ...model, outcome: 'error' })).toBe(
        histogramCount(before, 'waggle_provider_request_duration_seconds', { ...model, outcome: 'error' }) + 1,
      );
    });
  });

  it('counts a delivered callback and the attempts it took after a webhook trigger', async () => {
    const before = await scrape('callback-dispatcher');
    const variant = measured.variants.find((candidate) => candidate.name === 'default');
    const response = await fetch(`${gateway}/v1/prompt/webhooks/${measured.prompt_endpoint_id}/variants/${variant?.variant_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-webhook-secret': measured.webhook_secret },
      body: JSON.stringify({ inputs: { question: 'Called back?' }, async: { callback_url: `${receiverUrl}/metrics-hook` } }),
    });
    expect(response.status).toBe(202);
    await expectEventually(() => expect(receiver.on('/metrics-hook')).toHaveLength(1), { timeoutMs: 15_000 });
    await expectEventually(async () => {
      const after = await scrape('callback-dispatcher');
      expect(sampleSum(after, 'waggle_callback_deliveries_total', { outcome: 'delivered' })).toBe(
        sampleSum(before, 'waggle_callback_deliveries_total', { outcome: 'delivered' }) + 1,
      );
      expect(histogramCount(after, 'waggle_callback_delivery_attempts', { outcome: 'delivered' })).toBe(
        histogramCount(before, 'waggle_callback_delivery_attempts', { outcome: 'delivered' }) + 1,
      );
    });
  });

  it('counts a meter refusal once a small daily cap is spent', async () => {
    const capped = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e metrics cap']);
    await cliJson(['workspace', 'set-limits', capped.workspace_id, '--rate-limit-per-day', '1']);
    const before = sampleSum(await scrape('gateway'), 'waggle_meter_refusals_total', { reason: 'daily_limit' });
    const statuses: number[] = [];
    for (let request = 0; request < 3; request += 1)
      statuses.push((await fetch(`${gateway}/v1/models`, { headers: { authorization: `Bearer ${capped.api_key}` } })).status);
    expect(statuses).toEqual([200, 429, 429]);
    await expectEventually(async () =>
      expect(sampleSum(await scrape('gateway'), 'waggle_meter_refusals_total', { reason: 'daily_limit' })).toBe(before + 2),
    );
  });

  it('counts a usage governance refusal by scope and reason, without ids', async () => {
    const limited = await cliJson<{ workspace_id: string }>(['workspace', 'create', '--name', 'e2e metrics governed']);
    const key = await cliJson<{ id: string; api_key: string }>(['key', 'create', limited.workspace_id, '--json']);
    const authorization = `Bearer ${key.api_key}`;
    const created = await fetch(`${gateway}/v1/private/rate_limits`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ scope: 'api_key', scope_id: key.id, requests_per_minute: 1 }),
    });
    expect(created.status).toBe(201);
    const refusals = { scope: 'api_key', reason: 'requests_per_minute' };
    const before = sampleSum(await scrape('gateway'), 'waggle_governance_refusals_total', refusals);
    const statuses: number[] = [];
    for (let request = 0; request < 2; request += 1)
      statuses.push((await fetch(`${gateway}/v1/models`, { headers: { authorization } })).status);
    expect(statuses).toEqual([200, 429]);
    await expectEventually(async () => {
      const metrics = await scrape('gateway');
      expect(sampleSum(metrics, 'waggle_governance_refusals_total', refusals)).toBe(before + 1);
      expect(labelSets(metrics, 'waggle_governance_refusals_total').flatMap(Object.values)).not.toContain(key.id);
    });
  });

  it("reads each queue's gauges in the app that owns its worker, live at scrape time", async () => {
    for (const [queue, owner] of Object.entries(QUEUE_OWNERS)) {
      const metrics = await scrape(owner);
      const states = labelSets(metrics, 'waggle_queue_jobs')
        .filter((labels) => labels.queue === queue)
        .map((labels) => labels.state);
      expect(states.sort()).toEqual([...QUEUE_STATES].sort());
      expect(labelSets(metrics, 'waggle_queue_oldest_waiting_age_seconds')).toContainEqual({ queue });
    }
    // The gateway runs no worker: no queue gauges there.
    expect((await scrape('gateway')).waggle_queue_jobs).toBeUndefined();

    // A job added now shows at the next scrape.
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const cleanup = new Queue(QueueNames.knowledgeBaseCleanup, { connection });
    const delayed = { queue: QueueNames.knowledgeBaseCleanup, state: 'delayed' };
    try {
      const before = sampleSum(await scrape('knowledge-base'), 'waggle_queue_jobs', delayed);
      const job = await cleanup.add('metrics-probe', { probe: true } as never, { delay: 3_600_000 });
      try {
        await expectEventually(async () =>
          expect(sampleSum(await scrape('knowledge-base'), 'waggle_queue_jobs', delayed)).toBe(before + 1),
        );
      } finally {
        await job.remove();
      }
    } finally {
      await cleanup.close();
      connection.disconnect();
    }
  });

  it('queries in the Grafana dashboard only series the apps export', async () => {
    const dashboard = readGrafanaDashboard();
    const exported = new Set<string>();
    for (const name of APP_NAMES) {
      for (const [family, metric] of Object.entries(await scrape(name))) {
        exported.add(family);
        if (metric.type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) exported.add(`${family}${suffix}`);
      }
    }
    const queried = dashboardExpressions(dashboard).flatMap(metricNamesIn);
    expect(queried.length).toBeGreaterThan(10);
    expect([...new Set(queried)].filter((name) => !exported.has(name))).toEqual([]);
  });
});
