import type { WorkflowRunView, WorkflowStepRecordView } from '@waggle/contracts';
import {
  CallbackReceiver,
  cliJson,
  createTestCertificates,
  expectEventually,
  FakeProviderServer,
  FakeSearchServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  OtlpReceiver,
  spawnApp,
  waitUntilLive,
  type AppProcess,
  type ReceivedCallback,
  type ReceivedSpan,
} from '@waggle/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../setup/test-env';

interface Workspace {
  id: string;
  key: string;
}

/**
 * A local API an `http` step calls: `GET /gate/<name>` is held until the test opens that gate,
 * so a run can be stopped at a known step (arrivals are counted to know it got there).
 */
class GateServer {
  private server?: Server;
  private readonly opened = new Set<string>();
  private readonly held = new Map<string, Array<() => void>>();
  readonly arrivals = new Map<string, number>();
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const name = (request.url ?? '').replace(/^\/gate\//, '');
      this.arrivals.set(name, (this.arrivals.get(name) ?? 0) + 1);
      const answer = () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ gate: name }));
      };
      if (this.opened.has(name)) return answer();
      this.held.set(name, [...(this.held.get(name) ?? []), answer]);
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  open(name: string): void {
    this.opened.add(name);
    for (const answer of this.held.get(name) ?? []) answer();
    this.held.delete(name);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const WORKFLOWS = (gate: string) => `
workflows:
  - deployment: company-brief
    variants:
      - name: default
        inputs: { topic: { type: text, required: true } }
        output: "{{ summary.output }}"
        steps:
          - { id: search, type: web_search, query: "{{ topic }}", num_results: 4 }
          - id: pages
            type: loop
            over: "{{ search.output.results }}"
            max_iterations: 10
            concurrency: 2
            steps:
              - { id: page, type: scrape, url: "{{ item.url }}", on_error: continue }
          - id: enough
            type: condition
            when: { all: [ { left: "{{ pages.output }}", op: is_not_empty } ] }
            then:
              - { id: summary, type: prompt, model: fake-flow, messages: [ { role: user, content: "Summarise for {{ topic }}: {{ pages.output.size }} pages" } ] }
            else:
              - { id: summary, type: template, text: "No sources for {{ topic }}" }
  - deployment: failing
    variants:
      - name: default
        output: "{{ never.output }}"
        steps:
          - { id: first, type: template, text: "before" }
          - { id: never, type: prompt, model: fake-flow-broken, messages: [ { role: user, content: "{{ first.output }}" } ] }
  - deployment: looped
    variants:
      - name: default
        inputs: { items: { type: json, required: true } }
        output: "{{ each.output }}"
        steps:
          - id: each
            type: loop
            over: "{{ items }}"
            max_iterations: 3
            steps:
              - { id: upper, type: template, text: "{{ item | upcase }}" }
  - deployment: five-steps
    variants:
      - name: default
        output: "{{ e.output }}"
        steps:
          - { id: a, type: template, text: "a" }
          - { id: b, type: template, text: "{{ a.output }}b" }
          - { id: c, type: template, text: "{{ b.output }}c" }
          - { id: d, type: template, text: "{{ c.output }}d" }
          - { id: e, type: template, text: "{{ d.output }}e" }
  - deployment: scraper
    variants:
      - name: default
        inputs: { urls: { type: json, required: true }, fail_fast: { type: boolean, default: false } }
        output: "{{ pages.output.size }}"
        steps:
          - id: pages
            type: loop
            over: "{{ urls }}"
            max_iterations: 20
            concurrency: 5
            steps:
              - { id: page, type: scrape, url: "{{ item }}", on_error: continue }
  - deployment: strict-scrape
    variants:
      - name: default
        inputs: { url: { type: text, required: true } }
        output: "{{ page.output.title }}"
        steps:
          - { id: page, type: scrape, url: "{{ url }}" }
  - deployment: gated
    variants:
      - name: default
        inputs: { gate: { type: text, required: true } }
        output: "{{ hello.output }} / {{ wait.output.body.gate }}"
        steps:
          - { id: hello, type: prompt, model: fake-flow, messages: [ { role: user, content: "hello {{ gate }}" } ] }
          - { id: wait, type: http, method: GET, url: "${gate}/gate/{{ gate }}" }
`;

/**
 * Workflow runs through the whole stack over HTTP: definitions applied by the CLI, runs invoked
 * sync and async through the gateway, executed by invocation's workers against the fake model
 * provider, the fake search server (SearXNG protocol, pages over HTTPS with a test CA) and a
 * local API, callbacks signed by the dispatcher, the concurrency cap, the provider tool meter,
 * the step cap, and a worker killed mid-run.
 */
describe('workflow runs', () => {
  const fake = new FakeProviderServer({});
  let search: FakeSearchServer;
  const receiver = new CallbackReceiver();
  const gates = new GateServer();
  /** Spans of the gateway, invocation and agent (the other apps export none). */
  const spans = new OtlpReceiver();
  const apps: AppProcess[] = [];
  let invocation: AppProcess;
  let invocationEnv: Record<string, string>;
  let gateway: string;
  let receiverUrl: string;
  let db: Client;
  let main: Workspace;
  let other: Workspace;

  const call = async <T>(who: Workspace, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const invoke = <T = Record<string, unknown>>(who: Workspace, body: Record<string, unknown>) =>
    call<T>(who, 'POST', '/v1/workflow/invoke', body);
  const runOf = async (who: Workspace, id: string) =>
    (await call<{ workflow_run: WorkflowRunView }>(who, 'GET', `/v1/workflow_runs/${id}`)).body.workflow_run;
  const stepsOf = async (who: Workspace, id: string) =>
    (await call<{ steps: WorkflowStepRecordView[] }>(who, 'GET', `/v1/private/workflow_runs/${id}/steps`)).body.steps;
  const callbackOf = (requestId: string): ReceivedCallback | undefined =>
    receiver.on('/hooks').find((callback) => (JSON.parse(callback.body) as { request_id: string }).request_id === requestId);
  /** The spans of a run's trace, once its run span has been exported (it ends last of the run's own). */
  const traceOfRun = async (id: string): Promise<ReceivedSpan[]> => {
    let run: ReceivedSpan | undefined;
    await expectEventually(() => {
      run = spans.spans.find((span) => span.attributes['waggle.workflow.run.id'] === id);
      expect(run).toBeDefined();
    });
    return spans.trace((run as ReceivedSpan).traceId);
  };

  async function workspace(name: string, limits: string[] = []): Promise<Workspace> {
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      name,
      '--plan',
      'enterprise',
    ]);
    if (limits.length > 0) await cliJson(['workspace', 'set-limits', created.workspace_id, ...limits]);
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-workflows-')), 'workflows.yaml');
    writeFileSync(file, WORKFLOWS(gates.url));
    await cliJson(['apply', '-f', file, '--workspace', created.workspace_id]);
    return { id: created.workspace_id, key: created.api_key };
  }

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const certificates = await createTestCertificates();
    search = new FakeSearchServer({ tls: { key: certificates.key, cert: certificates.cert } });
    await search.start();
    const caFile = join(mkdtempSync(join(tmpdir(), 'waggle-test-ca-')), 'ca.pem');
    writeFileSync(caFile, certificates.caCert);
    receiverUrl = await receiver.start();
    await gates.start();
    const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: await spans.start(), OTEL_BSP_SCHEDULE_DELAY: '100' };
    fake.setModel('fake-flow-broken', { error: { status: 400, message: 'the model refused' } });
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    invocationEnv = {
      ...env,
      WEB_SEARCH_PROVIDER: 'searxng',
      SEARXNG_URL: search.url,
      SCRAPE_URL_ALLOWLIST: '127.0.0.1',
      SCRAPE_EXTRA_CA_FILE: caFile,
      // The search API is served over HTTPS by the same test CA.
      NODE_EXTRA_CA_CERTS: caFile,
      WORKFLOW_HTTP_URL_ALLOWLIST: '127.0.0.1',
      WORKFLOW_LEASE_MS: '1500',
      WORKFLOW_REAPER_GRACE_MS: '15000',
      WORKFLOW_REAPER_INTERVAL_MS: '500',
      WORKFLOW_SYNC_TIMEOUT_MS: '8000',
      WORKFLOW_SYNC_RECHECK_MS: '500',
    };
    invocation = spawnApp('invocation', await freePort(), { ...invocationEnv, ...traced });
    apps.push(
      spawnApp('catalog', await freePort(), env),
      invocation,
      spawnApp('agent', await freePort(), { ...env, ...traced }),
      spawnApp('callback-dispatcher', await freePort(), { LOG_LEVEL: 'warn', CALLBACK_URL_ALLOWLIST: '127.0.0.1' }),
    );
    const gatewayApp = spawnApp('gateway', await freePort(), { ...env, ...traced, CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    apps.push(gatewayApp);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;
    await loadCatalogWithFakeModels('2099.11.23', [fakeModel('fake-flow'), fakeModel('fake-flow-broken')]);
    main = await workspace('e2e workflows');
    other = await workspace('e2e workflows other');
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await db?.end();
    await fake.stop();
    await search?.stop();
    await receiver.stop();
    await gates.stop();
    await spans.stop();
  });

  it('runs the company brief sync: search, a loop of scrapes with one failing and continued, the condition, the prompt', async () => {
    const response = await invoke<{ request_id: string; run_status: string; output: string }>(main, {
      deployment: 'company-brief',
      variant: 'default',
      inputs: { topic: 'acme broken-at-2' },
      metadata: { team: 'blue' },
      user: 'user-9',
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['output', 'request_id', 'run_status']);
    expect(response.body).toMatchObject({ request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/), run_status: 'completed' });
    // Four results, one of them a page the server answers 404 for: three pages reach the prompt.
    expect(response.body.output).toBe('Echo: Summarise for acme broken-at-2: 3 pages');

    const steps = await stepsOf(main, response.body.request_id);
    const byKey = new Map(steps.map((step) => [step.step_key, step]));
    expect(byKey.get('search')).toMatchObject({
      step_type: 'web_search',
      status: 'completed',
      inputs: { query: 'acme broken-at-2', num_results: 4 },
    });
    expect((byKey.get('search')?.output as { results: unknown[] }).results).toHaveLength(4);
    const iterations = steps.filter((step) => step.step_type === 'loop_iteration');
    expect(iterations.map((step) => step.iteration).sort()).toEqual([0, 1, 2, 3]);
    const scrapes = steps.filter((step) => step.step_id === 'page');
    expect(scrapes).toHaveLength(4);
    expect(scrapes.filter((step) => step.status === 'failed')).toEqual([
      expect.objectContaining({ error: expect.stringContaining('404') }),
    ]);
    expect(byKey.get('enough')).toMatchObject({
      status: 'completed',
      inputs: { result: true, branch: 'then' },
      output: response.body.output,
    });
    expect(byKey.get('summary')).toMatchObject({ step_type: 'prompt', status: 'completed', model_calls: 1, tokens: expect.any(Number) });
    expect(steps.every((step) => step.attempts === 1)).toBe(true);

    const run = await runOf(main, response.body.request_id);
    expect(Object.keys(run).sort()).toEqual(
      [
        'async_webhook_url',
        'duration',
        'ended_at',
        'error_message',
        'id',
        'output_content',
        'run_async',
        'run_status',
        'start_inputs',
        'started_at',
        'token',
        'total_tokens',
      ].sort(),
    );
    expect(run).toMatchObject({
      id: response.body.request_id,
      run_status: 'completed',
      run_async: false,
      start_inputs: { topic: 'acme broken-at-2' },
      output_content: response.body.output,
      error_message: null,
      async_webhook_url: null,
    });
    expect(run.total_tokens).toBeGreaterThan(0);

    await expectEventually(async () => {
      const ledger = await call<Record<string, unknown>>(main, 'GET', `/v1/public/requests/${response.body.request_id}`);
      expect(ledger.body).toMatchObject({
        status: 'completed',
        request_type: 'workflow',
        requestable_type: 'workflow_deployment',
        metadata: { team: 'blue' },
        data: { output: response.body.output },
      });
    });
    const [row] = (
      await db.query<{ user_label: string }>('SELECT user_label FROM invocation.requests WHERE id = $1', [response.body.request_id])
    ).rows;
    expect(row.user_label).toBe('user-9');
  });

  it('traces a run: its span, a span per step under it, iterations under the loop step with their steps, a failed step in ERROR', async () => {
    const response = await invoke<{ request_id: string; run_status: string }>(main, {
      deployment: 'company-brief',
      variant: 'default',
      inputs: { topic: 'traced broken-at-1' },
    });
    expect(response.body.run_status).toBe('completed');
    const trace = await traceOfRun(response.body.request_id);
    const run = trace.find((span) => span.name === 'workflow company-brief') as ReceivedSpan;
    expect(run).toBeDefined();
    expect(run.service).toBe('waggle-invocation');
    expect(run.attributes).toMatchObject({
      'waggle.workflow.run.id': response.body.request_id,
      'waggle.workflow.id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'waggle.workflow.run.status': 'completed',
    });
    const named = (name: string) => trace.filter((span) => span.name === name);
    const childrenOf = (parent: ReceivedSpan, name?: string) =>
      trace.filter((span) => span.parentSpanId === parent.spanId && (name === undefined || span.name === name));
    // The run's top-level steps are the run span's children, in order.
    expect(
      childrenOf(run)
        .filter((span) => span.name.startsWith('step '))
        .map((span) => span.name),
    ).toEqual(['step search', 'step pages', 'step enough']);
    const [search] = named('step search');
    expect(search.attributes).toEqual(
      expect.objectContaining({
        'waggle.workflow.step.id': 'search',
        'waggle.workflow.step.type': 'web_search',
        'waggle.workflow.step.attempt': 1,
        'waggle.workflow.step.status': 'completed',
      }),
    );
    // Four iterations run two at a time, each under the loop step, each with its own scrape step.
    const [loop] = named('step pages');
    expect(loop.attributes).toMatchObject({ 'waggle.workflow.step.type': 'loop', 'waggle.workflow.step.status': 'completed' });
    // (The step records' statements are children of the steps too.)
    const iterations = childrenOf(loop).filter((span) => span.name.startsWith('iteration '));
    expect(iterations.map((span) => span.name).sort()).toEqual(['iteration 0', 'iteration 1', 'iteration 2', 'iteration 3']);
    expect(iterations.map((span) => span.attributes['waggle.workflow.loop.index']).sort()).toEqual([0, 1, 2, 3]);
    const pages = iterations.map((iteration) => childrenOf(iteration, 'step page'));
    expect(pages.map((children) => children.length)).toEqual([1, 1, 1, 1]);
    expect(named('step page')).toHaveLength(4);
    // The page the search server answers 404 for: its step failed (and was continued past), the span says so.
    const failed = pages.flat().filter((span) => span.attributes['waggle.workflow.step.status'] === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].status).toEqual({ code: 2, message: 'upstream_request_failed' });
    expect(failed[0].attributes['waggle.error_code']).toBe('upstream_request_failed');
    expect(pages.flat().filter((span) => span.status.code === 2)).toHaveLength(1);
    // The condition's branch runs under the condition's span.
    const [condition] = named('step enough');
    expect(condition.attributes).toMatchObject({ 'waggle.workflow.step.type': 'condition', 'waggle.workflow.step.status': 'completed' });
    expect(
      childrenOf(condition)
        .filter((span) => span.name.startsWith('step '))
        .map((span) => [span.name, span.attributes['waggle.workflow.step.type']]),
    ).toEqual([['step summary', 'prompt']]);
    // Nothing of the run's inputs is on a span.
    expect(trace.some((span) => JSON.stringify(span.attributes).includes('traced broken-at-1'))).toBe(false);
  });

  it('puts a failed run span in ERROR with the failing step', async () => {
    const failed = await invoke<{ request_id: string }>(main, { deployment: 'failing', variant: 'default' });
    expect(failed.status).toBe(502);
    const trace = await traceOfRun(failed.body.request_id);
    const run = trace.find((span) => span.name === 'workflow failing') as ReceivedSpan;
    expect(run.attributes['waggle.workflow.run.status']).toBe('failed');
    expect(run.status).toEqual({ code: 2, message: 'provider_error' });
    const never = trace.find((span) => span.name === 'step never') as ReceivedSpan;
    expect(never.parentSpanId).toBe(run.spanId);
    expect(never.attributes).toMatchObject({ 'waggle.workflow.step.status': 'failed', 'waggle.error_code': 'provider_error' });
    expect(never.status.code).toBe(2);
  });

  it('runs it async: running at once with the webhook secret, then a signed workflow.completed callback', async () => {
    const response = await invoke<{ request_id: string; run_status: string; webhook_secret: string }>(main, {
      deployment: 'company-brief',
      variant: 'default',
      inputs: { topic: 'globex' },
      async: { enabled: true, callback_url: `${receiverUrl}/hooks` },
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['request_id', 'run_status', 'webhook_secret']);
    expect(response.body.run_status).toBe('running');
    expect(response.body.webhook_secret).toMatch(/^whsec_/);
    await expectEventually(() => expect(callbackOf(response.body.request_id)).toBeDefined(), { timeoutMs: 30_000 });
    const callback = callbackOf(response.body.request_id) as ReceivedCallback;
    const verified = new Webhook(response.body.webhook_secret).verify(callback.body, {
      'webhook-id': String(callback.headers['webhook-id']),
      'webhook-timestamp': String(callback.headers['webhook-timestamp']),
      'webhook-signature': String(callback.headers['webhook-signature']),
    });
    expect(verified).toEqual({
      event_type: 'workflow.completed',
      request_id: response.body.request_id,
      data: { output: 'Echo: Summarise for globex: 4 pages' },
    });
    expect((await runOf(main, response.body.request_id)).async_webhook_url).toBe(`${receiverUrl}/hooks`);
  });

  it('runs a deployed prompt variant and an agent of the workspace as steps', async () => {
    const created = await call<{ agent: { id: string } }>(main, 'POST', `/v1/public/workspaces/${main.id}/agents`, {
      agent: { name: 'Flow agent', llm_model: 'fake-flow', model_type: 'llm' },
    });
    expect(created.status).toBe(200);
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-workflows-')), 'steps.yaml');
    writeFileSync(
      file,
      `
prompts:
  - deployment: flow-greeting
    variants:
      - name: default
        model: fake-flow
        messages: [ { role: user, content: "Greet {{ who }}" } ]
workflows:
  - deployment: delegating
    variants:
      - name: default
        inputs: { who: { type: text, required: true } }
        output: "{{ greeting.output }} | {{ answer.output }}"
        steps:
          - { id: greeting, type: prompt, deployment: flow-greeting, variant: default, inputs: { who: "{{ who }}" } }
          - { id: answer, type: agent, agent: ${created.body.agent.id}, message: "Reply to: {{ greeting.output }}" }
`,
    );
    await cliJson(['apply', '-f', file, '--workspace', main.id]);
    const response = await invoke<{ request_id: string; output: string }>(main, {
      deployment: 'delegating',
      variant: 'default',
      inputs: { who: 'Ada' },
    });
    expect(response).toMatchObject({
      status: 200,
      body: { run_status: 'completed', output: 'Echo: Greet Ada | Echo: Reply to: Echo: Greet Ada' },
    });
    const steps = await stepsOf(main, response.body.request_id);
    expect(steps.map((step) => [step.step_id, step.step_type, step.status, step.model_calls])).toEqual([
      ['greeting', 'prompt', 'completed', 1],
      ['answer', 'agent', 'completed', 1],
    ]);
    expect(steps.every((step) => step.tokens > 0)).toBe(true);

    // The agent step's span is active while it runs: its NATS request is its child, and the
    // agent run (in the agent service) is that request's.
    const traceId = (await traceOfRun(response.body.request_id))[0].traceId;
    // The agent service exports its spans on its own schedule.
    await expectEventually(() => expect(spans.trace(traceId).some((span) => span.service === 'waggle-agent')).toBe(true));
    const trace = spans.trace(traceId);
    const step = trace.find((span) => span.name === 'step answer') as ReceivedSpan;
    expect(step.attributes).toMatchObject({ 'waggle.workflow.step.type': 'agent', 'waggle.workflow.step.status': 'completed' });
    const send = trace.find((span) => span.name === 'send agent.runs.invoke') as ReceivedSpan;
    expect(send.parentSpanId).toBe(step.spanId);
    const agentRun = trace.find((span) => span.name === 'invoke_agent Flow agent') as ReceivedSpan;
    expect(agentRun).toBeDefined();
    expect(agentRun.service).toBe('waggle-agent');
    expect(trace.find((span) => span.spanId === agentRun.parentSpanId)?.parentSpanId).toBe(send.spanId);
    expect(agentRun.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': created.body.agent.id,
      'gen_ai.agent.name': 'Flow agent',
    });
  });

  it('fails a run at a step with on_error fail: the sync answer is that step error, async gets workflow.failed', async () => {
    const sync = await invoke<Record<string, unknown>>(main, { deployment: 'failing', variant: 'default' });
    expect(sync.status).toBe(502);
    expect(sync.body).toMatchObject({ error_code: 'provider_error', code: 'provider_error', request_id: expect.stringMatching(/^req_/) });
    const steps = await stepsOf(main, sync.body.request_id as string);
    expect(steps.map((step) => [step.step_id, step.status])).toEqual([
      ['first', 'completed'],
      ['never', 'failed'],
    ]);
    const run = await runOf(main, sync.body.request_id as string);
    expect(run).toMatchObject({ run_status: 'failed', error_message: sync.body.error, output_content: null });

    const accepted = await invoke<{ request_id: string }>(main, {
      deployment: 'failing',
      variant: 'default',
      async: { enabled: true, callback_url: `${receiverUrl}/hooks` },
    });
    await expectEventually(() => expect(callbackOf(accepted.body.request_id)).toBeDefined(), { timeoutMs: 30_000 });
    expect(JSON.parse((callbackOf(accepted.body.request_id) as ReceivedCallback).body)).toEqual({
      event_type: 'workflow.failed',
      request_id: accepted.body.request_id,
      data: { error: expect.stringContaining('refused'), error_code: 'provider_error' },
    });
  });

  it('refuses bad invokes before anything runs', async () => {
    expect((await invoke(main, { deployment: 'nope', variant: 'default' })).status).toBe(404);
    const missing = await invoke<Record<string, unknown>>(main, { deployment: 'company-brief', variant: 'default', inputs: {} });
    expect(missing).toMatchObject({ status: 422, body: { error_code: 'missing_required_field' } });
    const noCallback = await invoke<Record<string, unknown>>(main, {
      deployment: 'company-brief',
      variant: 'default',
      inputs: { topic: 'x' },
      async: { enabled: true },
    });
    expect(noCallback).toMatchObject({ status: 422, body: { error_code: 'missing_required_field' } });
    const nested = await invoke<Record<string, unknown>>(main, {
      deployment: 'company-brief',
      variant: 'default',
      inputs: { topic: 'x' },
      metadata: { a: { b: 1 } },
    });
    expect(nested.status).toBe(422);
    expect(
      (
        await db.query('SELECT count(*)::int AS n FROM invocation.workflow_runs WHERE workspace_id = $1 AND run_status = $2', [
          main.id,
          'running',
        ])
      ).rows[0].n,
    ).toBe(0);
  });

  it('applies the iteration limit and the step cap', async () => {
    const looped = await invoke<{ output: string }>(main, { deployment: 'looped', variant: 'default', inputs: { items: ['a', 'b'] } });
    expect(looped).toMatchObject({ status: 200, body: { output: '["A","B"]' } });
    const tooMany = await invoke<Record<string, unknown>>(main, {
      deployment: 'looped',
      variant: 'default',
      inputs: { items: ['a', 'b', 'c', 'd'] },
    });
    expect(tooMany).toMatchObject({ status: 422, body: { error_code: 'iteration_limit_exceeded' } });

    const capped = await workspace('e2e workflows step cap', ['--workflow-step-limit', '3']);
    const refused = await invoke<Record<string, unknown>>(capped, { deployment: 'five-steps', variant: 'default' });
    expect(refused).toMatchObject({
      status: 402,
      body: { error_code: 'workflow_step_limit_reached', code: 'workflow_step_limit_reached' },
    });
    const steps = await stepsOf(capped, refused.body.request_id as string);
    expect(steps.map((step) => step.step_id)).toEqual(['a', 'b', 'c']);
    const accepted = await invoke<{ request_id: string }>(capped, {
      deployment: 'five-steps',
      variant: 'default',
      async: { enabled: true, callback_url: `${receiverUrl}/hooks` },
    });
    await expectEventually(() => expect(callbackOf(accepted.body.request_id)).toBeDefined(), { timeoutMs: 30_000 });
    expect(JSON.parse((callbackOf(accepted.body.request_id) as ReceivedCallback).body).data).toMatchObject({
      error_code: 'workflow_step_limit_reached',
    });
  });

  it('meters provider tools exactly: with a cap of 15, exactly 15 tool runs succeed across parallel runs', async () => {
    const metered = await workspace('e2e workflows tool meter', ['--provider-tool-calls-per-day', '15']);
    const urls = Array.from({ length: 5 }, (_, index) => `${search.url}/pages/meter-${index}`);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        invoke<{ request_id: string; output: string }>(metered, { deployment: 'scraper', variant: 'default', inputs: { urls } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const steps = (await Promise.all(answers.map((answer) => stepsOf(metered, answer.body.request_id))))
      .flat()
      .filter((step) => step.step_id === 'page');
    expect(steps).toHaveLength(20);
    expect(steps.filter((step) => step.status === 'completed')).toHaveLength(15);
    const refused = steps.filter((step) => step.status === 'failed');
    expect(refused).toHaveLength(5);
    for (const step of refused)
      expect(step).toMatchObject({
        error_code: 'provider_tool_rate_limit_exceeded',
        error: expect.stringContaining('provider_tool_rate_limit_exceeded'),
      });
    expect(answers.map((answer) => Number(answer.body.output)).reduce((sum, count) => sum + count, 0)).toBe(15);
    // A step that does not continue on error fails its run with the plain error string.
    const failed = await invoke<Record<string, unknown>>(metered, {
      deployment: 'strict-scrape',
      variant: 'default',
      inputs: { url: urls[0] },
    });
    expect(failed.status).toBe(429);
    expect(failed.body.error).toEqual(expect.stringContaining('provider_tool_rate_limit_exceeded'));
    expect((await runOf(metered, failed.body.request_id as string)).error_message).toEqual(
      expect.stringContaining('provider_tool_rate_limit_exceeded'),
    );
  });

  it('never runs more than the cap of 3: 50 parallel invokes, sync ones over it answer 429 {error}, async ones queue and all finish', async () => {
    const capped = await workspace('e2e workflows concurrency', ['--workflow-concurrency', '3']);
    const gate = 'cap';
    const body = (async: boolean) => ({
      deployment: 'gated',
      variant: 'default',
      inputs: { gate },
      ...(async && { async: { enabled: true, callback_url: `${receiverUrl}/hooks` } }),
    });
    const settledSync: Array<{ status: number; body: Record<string, unknown> }> = [];
    const syncCalls: Array<Promise<unknown>> = [];
    const asyncCalls: Array<Promise<{ status: number; body: Record<string, unknown> }>> = [];
    for (let index = 0; index < 50; index += 1) {
      if (index % 2 === 0) asyncCalls.push(invoke(capped, body(true)));
      else syncCalls.push(invoke(capped, body(false)).then((answer) => settledSync.push(answer)));
    }
    const asyncAnswers = await Promise.all(asyncCalls);
    const syncRows = async () =>
      (
        await db.query<{ n: number }>('SELECT count(*)::int AS n FROM invocation.workflow_runs WHERE workspace_id = $1 AND NOT run_async', [
          capped.id,
        ])
      ).rows[0].n;
    // Every sync invoke is either refused (answered) or admitted (its row exists, waiting at the gate).
    await expectEventually(async () => expect(settledSync.filter((answer) => answer.status === 429).length + (await syncRows())).toBe(25), {
      timeoutMs: 30_000,
    });
    gates.open(gate);
    await Promise.all(syncCalls);

    for (const answer of asyncAnswers) {
      expect(answer.status).toBe(200);
      expect(['running', 'queued']).toContain(answer.body.run_status);
      expect(answer.body.webhook_secret).toEqual(expect.stringMatching(/^whsec_/));
    }
    expect(asyncAnswers.filter((answer) => answer.body.run_status === 'queued').length).toBeGreaterThan(0);
    const refused = settledSync.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) expect(Object.keys(answer.body)).toEqual(['error']);
    // An admitted sync invoke answers the output, or (on a machine slow enough to pass the wait) the time-out with its request id.
    for (const answer of settledSync.filter((answer) => answer.status !== 429)) {
      if (answer.status === 200) expect(answer.body).toMatchObject({ run_status: 'completed', output: `Echo: hello ${gate} / ${gate}` });
      else expect(answer).toMatchObject({ status: 504, body: { request_id: expect.stringMatching(/^req_/) } });
    }

    const runs = async () =>
      (
        await db.query<{ id: string; run_status: string; queue_seq: string; started_at: Date; run_async: boolean }>(
          'SELECT id, run_status, queue_seq, started_at, run_async FROM invocation.workflow_runs WHERE workspace_id = $1 ORDER BY queue_seq',
          [capped.id],
        )
      ).rows;
    await expectEventually(async () => expect((await runs()).every((run) => run.run_status === 'completed')).toBe(true), {
      timeoutMs: 60_000,
    });
    const all = await runs();
    expect(all.filter((run) => run.run_async)).toHaveLength(25);
    // Observed through the step records: at no moment did more than 3 runs have a step in progress.
    const spans = (
      await db.query<{ first: Date; last: Date }>(
        'SELECT min(s.started_at) AS first, max(s.ended_at) AS last FROM invocation.workflow_step_runs s JOIN invocation.workflow_runs r ON r.id = s.run_id WHERE r.workspace_id = $1 GROUP BY s.run_id',
        [capped.id],
      )
    ).rows;
    expect(spans).toHaveLength(all.length);
    const events = spans.flatMap((span) => [
      { at: span.first.getTime(), delta: 1 },
      { at: span.last.getTime(), delta: -1 },
    ]);
    events.sort((a, b) => a.at - b.at || a.delta - b.delta);
    let running = 0;
    let most = 0;
    for (const event of events) most = Math.max(most, (running += event.delta));
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(0);
    // Queued async runs started in the order they were accepted. Runs whose slots freed together
    // are promoted by concurrent statements whose timestamps may come out a millisecond apart
    // either way, so a run is compared with the runs accepted more than a cap's worth before it:
    // none of those may have started after it.
    const asyncStarts = all.filter((run) => run.run_async).map((run) => run.started_at.getTime());
    const startedAfterLater = asyncStarts.flatMap((start, later) =>
      asyncStarts.slice(0, Math.max(0, later - 2)).flatMap((earlierStart, earlier) => (earlierStart > start ? [[earlier, later]] : [])),
    );
    expect(startedAfterLater).toEqual([]);
    await expectEventually(() => expect(asyncAnswers.every((answer) => callbackOf(answer.body.request_id as string))).toBe(true), {
      timeoutMs: 30_000,
    });
  });

  it('answers a sync invoke that outlives its wait with an error carrying the request id; the run finishes later', async () => {
    const response = await invoke<Record<string, unknown>>(main, { deployment: 'gated', variant: 'default', inputs: { gate: 'slow' } });
    expect(response.status).toBe(504);
    expect(response.body).toMatchObject({ error_code: 'upstream_request_failed', request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/) });
    const id = response.body.request_id as string;
    expect((await runOf(main, id)).run_status).toBe('running');
    gates.open('slow');
    await expectEventually(
      async () => expect(await runOf(main, id)).toMatchObject({ run_status: 'completed', output_content: 'Echo: hello slow / slow' }),
      { timeoutMs: 30_000 },
    );
  });

  it('keeps runs to their workspace', async () => {
    const response = await invoke<{ request_id: string }>(main, { deployment: 'five-steps', variant: 'default' });
    expect(response.status).toBe(200);
    const foreign = await call<Record<string, unknown>>(other, 'GET', `/v1/workflow_runs/${response.body.request_id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('Prompt workflow run not found');
    expect((await call(other, 'GET', `/v1/private/workflow_runs/${response.body.request_id}/steps`)).status).toBe(404);
    expect((await call(main, 'GET', '/v1/workflow_runs/req_00000000000000000000000000000000')).status).toBe(404);
  });

  it("works with the official SDK's workflow calls, only the base URL changed", async () => {
    // What FetchHive#invokeWorkflow sends: POST {baseURL}/workflow/invoke with the params as they are.
    const baseURL = `${gateway}/v1`;
    const post = (body: unknown) =>
      fetch(`${baseURL}/workflow/invoke`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${main.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const sync = await post({ deployment: 'five-steps', variant: 'default', inputs: {}, user: 'sdk-user' });
    expect(sync.ok).toBe(true);
    expect(await sync.json()).toMatchObject({ request_id: expect.stringMatching(/^req_/), run_status: 'completed', output: 'abcde' });
    // The SDK's generated models send unset optional fields as null.
    const nulls = await post({ deployment: 'five-steps', variant: 'default', inputs: null, async: null, user: null });
    expect(nulls.status).toBe(200);
    const queued = await post({
      deployment: 'five-steps',
      variant: 'default',
      async: { enabled: true, callback_url: `${receiverUrl}/hooks` },
    });
    const accepted = (await queued.json()) as { request_id: string; run_status: string; webhook_secret: string };
    expect(accepted).toMatchObject({ run_status: 'running', webhook_secret: expect.stringMatching(/^whsec_/) });
    await expectEventually(() => expect(callbackOf(accepted.request_id)).toBeDefined(), { timeoutMs: 30_000 });
  });

  it('executes runs where they were admitted: one record write per side-effect-free step, a start record for a step that reaches out, no queue job left, the slot counts back to zero', async () => {
    // Every write to a step record, as a trigger this test adds (and drops) sees it.
    await db.query('CREATE TABLE public.e2e_step_writes (run_id text, step_key text, op text, status text, at bigserial)');
    await db.query(
      `CREATE FUNCTION public.e2e_log_step_write() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN INSERT INTO public.e2e_step_writes (run_id, step_key, op, status) VALUES (NEW.run_id, NEW.step_key, TG_OP, NEW.status); RETURN NULL; END $$`,
    );
    await db.query(
      'CREATE TRIGGER e2e_log_step_write AFTER INSERT OR UPDATE ON invocation.workflow_step_runs FOR EACH ROW EXECUTE FUNCTION public.e2e_log_step_write()',
    );
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('workflow-runs', { connection });
    try {
      const sync = await invoke<{ request_id: string; output: string }>(main, { deployment: 'five-steps', variant: 'default' });
      expect(sync).toMatchObject({ status: 200, body: { output: 'abcde' } });
      gates.open('writes');
      const accepted = await invoke<{ request_id: string; run_status: string }>(main, {
        deployment: 'gated',
        variant: 'default',
        inputs: { gate: 'writes' },
        async: { enabled: true, callback_url: `${receiverUrl}/hooks` },
      });
      expect(accepted.body.run_status).toBe('running');
      await expectEventually(() => expect(callbackOf(accepted.body.request_id)).toBeDefined(), { timeoutMs: 30_000 });
      const writes = async (runId: string) =>
        (
          await db.query<{ step_key: string; op: string; status: string }>(
            'SELECT step_key, op, status FROM public.e2e_step_writes WHERE run_id = $1 ORDER BY at',
            [runId],
          )
        ).rows.map((write) => `${write.step_key} ${write.op} ${write.status}`);
      expect(await writes(sync.body.request_id)).toEqual(['a', 'b', 'c', 'd', 'e'].map((key) => `${key} INSERT completed`));
      expect(await writes(accepted.body.request_id)).toEqual(['hello INSERT completed', 'wait INSERT running', 'wait UPDATE completed']);
      // Each ran where it was admitted: its lease taken in the admission (one attempt), and its
      // safety-net job (waiting a lease long in case that replica died) removed once it ended.
      for (const id of [sync.body.request_id, accepted.body.request_id])
        expect((await db.query<{ attempts: number }>('SELECT attempts FROM invocation.workflow_runs WHERE id = $1', [id])).rows).toEqual([
          { attempts: 1 },
        ]);
      await expectEventually(
        async () => {
          expect(await queue.getJob(sync.body.request_id)).toBeUndefined();
          expect(await queue.getJob(accepted.body.request_id)).toBeUndefined();
        },
        { timeoutMs: 10_000 },
      );
      // The trigger-kept slot counts match the runs: none of the workspace's runs is running or queued.
      await expectEventually(
        async () =>
          expect((await db.query('SELECT running, queued FROM invocation.workflow_slots WHERE workspace_id = $1', [main.id])).rows).toEqual(
            [{ running: 0, queued: 0 }],
          ),
        { timeoutMs: 30_000 },
      );
    } finally {
      await queue.close();
      await connection.quit();
      await db.query('DROP TRIGGER e2e_log_step_write ON invocation.workflow_step_runs');
      await db.query('DROP FUNCTION public.e2e_log_step_write()');
      await db.query('DROP TABLE public.e2e_step_writes');
    }
  });

  it('keeps a run with its replica while that replica renews the lease: the safety-net job finds the lease live and waits, running nothing', async () => {
    const from = fake.requests.length;
    const accepted = await invoke<{ request_id: string; run_status: string }>(main, {
      deployment: 'gated',
      variant: 'default',
      inputs: { gate: 'leased' },
      async: { enabled: true, callback_url: `${receiverUrl}/hooks` },
    });
    expect(accepted.body.run_status).toBe('running');
    const id = accepted.body.request_id;
    await expectEventually(() => expect(gates.arrivals.get('leased')).toBe(1), { timeoutMs: 30_000 });
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('workflow-runs', { connection });
    try {
      // The job waits one lease (1.5 s here), is taken, finds the lease renewed and goes back to wait: twice.
      await expectEventually(
        async () => {
          const job = await queue.getJob(id);
          expect(job?.attemptsStarted).toBeGreaterThanOrEqual(2);
          expect(await job?.isDelayed()).toBe(true);
        },
        { timeoutMs: 30_000 },
      );
      expect(gates.arrivals.get('leased')).toBe(1);
      expect((await stepsOf(main, id)).map((step) => [step.step_id, step.status, step.attempts])).toEqual([
        ['hello', 'completed', 1],
        ['wait', 'running', 1],
      ]);
      gates.open('leased');
      await expectEventually(() => expect(callbackOf(id)).toBeDefined(), { timeoutMs: 30_000 });
      expect(await runOf(main, id)).toMatchObject({ run_status: 'completed', output_content: 'Echo: hello leased / leased' });
      expect((await db.query<{ attempts: number }>('SELECT attempts FROM invocation.workflow_runs WHERE id = $1', [id])).rows).toEqual([
        { attempts: 1 },
      ]);
      expect(fake.requests.slice(from).filter((request) => JSON.stringify(request.body).includes('hello leased'))).toHaveLength(1);
      // The safety net is gone (removed once the run was settled; a job that was just being looked at
      // when the run ended finds it finished and completes instead).
      await expectEventually(
        async () => {
          const job = await queue.getJob(id);
          expect(job === undefined || (await job.isCompleted())).toBe(true);
        },
        { timeoutMs: 10_000 },
      );
    } finally {
      await queue.close();
      await connection.quit();
    }
  });

  it('finishes a run whose worker was killed mid-run: another worker takes it over without repeating finished steps', async () => {
    const from = fake.requests.length;
    const accepted = await invoke<{ request_id: string }>(main, {
      deployment: 'gated',
      variant: 'default',
      inputs: { gate: 'kill' },
      async: { enabled: true, callback_url: `${receiverUrl}/hooks` },
    });
    expect(accepted.status).toBe(200);
    await expectEventually(() => expect(gates.arrivals.get('kill')).toBe(1), { timeoutMs: 30_000 });
    await invocation.stop('SIGKILL');
    const replacement = spawnApp('invocation', await freePort(), invocationEnv);
    apps[apps.indexOf(invocation)] = replacement;
    invocation = replacement;
    await waitUntilLive(replacement);
    gates.open('kill');
    await expectEventually(() => expect(callbackOf(accepted.body.request_id)).toBeDefined(), { timeoutMs: 60_000 });
    const run = await runOf(main, accepted.body.request_id);
    expect(run).toMatchObject({ run_status: 'completed', output_content: 'Echo: hello kill / kill' });
    const steps = await stepsOf(main, accepted.body.request_id);
    expect(steps.map((step) => [step.step_id, step.status, step.attempts])).toEqual([
      ['hello', 'completed', 1],
      ['wait', 'completed', 2],
    ]);
    // The model was called once: the finished step was not run again.
    expect(fake.requests.slice(from).filter((request) => JSON.stringify(request.body).includes('hello kill'))).toHaveLength(1);
    // Its cost, kept in its record by the killed worker, is the run's: the new worker added it without calling the model.
    const recorded = await db.query<{ cost_picos: string | null }>(
      "SELECT cost_picos FROM invocation.workflow_step_runs WHERE run_id = $1 AND step_key = 'hello'",
      [accepted.body.request_id],
    );
    const picos = Number(recorded.rows[0].cost_picos);
    expect(picos).toBeGreaterThan(0);
    await expectEventually(async () =>
      expect((await call<Record<string, unknown>>(main, 'GET', `/v1/public/requests/${accepted.body.request_id}`)).body).toMatchObject({
        status: 'completed',
        cost_micros: Math.round(picos / 1_000_000),
      }),
    );
  });

  it('fails a run whose worker died and whose job is gone: the reaper fails it, its slot goes to the queued run', async () => {
    const single = await workspace('e2e workflows reaper', ['--workflow-concurrency', '1']);
    const hook = { enabled: true, callback_url: `${receiverUrl}/hooks` };
    const stuck = await invoke<{ request_id: string; run_status: string }>(single, {
      deployment: 'gated',
      variant: 'default',
      inputs: { gate: 'reaped' },
      async: hook,
    });
    expect(stuck.body.run_status).toBe('running');
    const waiting = await invoke<{ request_id: string; run_status: string }>(single, {
      deployment: 'five-steps',
      variant: 'default',
      async: hook,
    });
    expect(waiting.body.run_status).toBe('queued');
    await expectEventually(() => expect(gates.arrivals.get('reaped')).toBe(1), { timeoutMs: 30_000 });
    await invocation.stop('SIGKILL');
    // The job is lost too (as if Redis had lost it): no worker can take the run over.
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('workflow-runs', { connection });
    try {
      await expectEventually(
        async () => {
          const job = await queue.getJob(stuck.body.request_id);
          if (job) await job.remove();
          expect(await queue.getJob(stuck.body.request_id)).toBeUndefined();
        },
        { timeoutMs: 30_000 },
      );
    } finally {
      await queue.close();
      await connection.quit();
    }
    const replacement = spawnApp('invocation', await freePort(), invocationEnv);
    apps[apps.indexOf(invocation)] = replacement;
    invocation = replacement;
    await waitUntilLive(replacement);
    await expectEventually(() => expect(callbackOf(stuck.body.request_id)).toBeDefined(), { timeoutMs: 90_000 });
    expect(JSON.parse((callbackOf(stuck.body.request_id) as ReceivedCallback).body)).toMatchObject({
      event_type: 'workflow.failed',
      data: { error_code: 'internal_server_error' },
    });
    expect(await runOf(single, stuck.body.request_id)).toMatchObject({
      run_status: 'failed',
      error_message: expect.stringContaining('stopped'),
    });
    // The freed slot started the queued run.
    await expectEventually(() => expect(callbackOf(waiting.body.request_id)).toBeDefined(), { timeoutMs: 30_000 });
    expect(JSON.parse((callbackOf(waiting.body.request_id) as ReceivedCallback).body)).toMatchObject({
      event_type: 'workflow.completed',
      data: { output: 'abcde' },
    });
    gates.open('reaped');
  });
});
