import type { AgentRecord, AppliedDeployment, AssetRecord, KnowledgeBaseItemRecord, KnowledgeBaseRecord } from '@waggle/contracts';
import {
  CallbackReceiver,
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  OtlpReceiver,
  spawnApp,
  waitUntilLive,
  type AppProcess,
  type ReceivedSpan,
} from '@waggle/testing';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const CHAT_MODEL = 'fake-trace-chat';
const AGENT_MODEL = 'fake-trace-agent';
const EMBEDDER = 'fake-trace-embedder';
const POLICY = '# Refund policy\n\nRefunds are issued within 14 days of the purchase. The code word for a refund request is PELICAN.\n';
/** A phrase only the client sends: it must never be on a span (content is off by default). */
const PRIVATE_TOPIC = 'the Okavango refund dispute';

const SPAN_KIND_SERVER = 2;
const STATUS_ERROR = 2;

/** A W3C traceparent of the test's own (the "client's") span, and its ids. */
function clientSpan(): { traceId: string; spanId: string; header: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}

/** A trace's spans by id, and what a test asks of its shape. */
class TraceView {
  private readonly byId: Map<string, ReceivedSpan>;

  constructor(
    readonly spans: ReceivedSpan[],
    private readonly rootParent: string,
  ) {
    this.byId = new Map(spans.map((span) => [span.spanId, span]));
  }

  named(name: string | RegExp, service?: string): ReceivedSpan[] {
    return this.spans.filter(
      (span) => (typeof name === 'string' ? span.name === name : name.test(span.name)) && (!service || span.service === service),
    );
  }

  one(name: string | RegExp, service?: string): ReceivedSpan {
    const found = this.named(name, service);
    expect(found.map((span) => `${span.service} ${span.name}`)).toHaveLength(1);
    return found[0];
  }

  /** Whether `span` descends from `ancestor` by parent links. */
  under(span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
    for (let parent = span.parentSpanId; parent; parent = this.byId.get(parent)?.parentSpanId) if (parent === ancestor.spanId) return true;
    return false;
  }

  /** One trace, one tree: every span's parent is in the trace, except the gateway's, whose parent is the client's span. */
  expectOneTree(): void {
    const orphans = this.spans.filter((span) => !span.parentSpanId || !this.byId.has(span.parentSpanId));
    expect(orphans.map((span) => [span.service, span.name, span.parentSpanId === this.rootParent])).toEqual([
      ['waggle-gateway', expect.any(String), true],
    ]);
  }
}

/**
 * What an operator opens a trace for, proved against a real OTLP/HTTP receiver: every app of
 * the stack exports its spans, and three client requests each come out as one trace with the
 * right parent links, the model calls in the OpenTelemetry GenAI conventions, a span per
 * workflow step, agent tool call and knowledge search, the callback's delivery, and the
 * trace id handed back to the client in `traceparent` and in the request's record.
 */
describe('traces a platform team can read', () => {
  const traces = new OtlpReceiver();
  const fake = new FakeProviderServer({});
  const callbacks = new CallbackReceiver();
  const apps: AppProcess[] = [];
  let gateway: string;
  let key: string;
  let workspaceId: string;
  let agent: AgentRecord;
  let knowledgeBase: KnowledgeBaseRecord;
  let hooked: AppliedDeployment;
  let callbacksUrl: string;

  async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined && !(body instanceof FormData) && { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as T };
  }

  /** The trace's spans once `ready` holds of them (each process exports on its own schedule). */
  async function traceOnce(traceId: string, rootParent: string, ready: (view: TraceView) => void): Promise<TraceView> {
    return expectEventually(
      () => {
        const view = new TraceView(traces.trace(traceId), rootParent);
        ready(view);
        return view;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
  }

  /** The response's traceparent names the client's trace and the gateway's own server span (traceresponse). */
  function expectTraceResponse(headers: Headers, client: { traceId: string }): string {
    const header = headers.get('traceparent') ?? '';
    expect(header).toMatch(new RegExp(`^00-${client.traceId}-[0-9a-f]{16}-0[01]$`));
    return header.split('-')[2];
  }

  function expectGenAiChat(span: ReceivedSpan, model: string): void {
    expect(span.name).toBe(`chat ${model}`);
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'fake',
      'gen_ai.request.model': model,
      'gen_ai.response.model': model,
      'gen_ai.response.finish_reasons': [expect.any(String)],
      'gen_ai.usage.input_tokens': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
    });
  }

  beforeAll(async () => {
    const otlp = await traces.start();
    const fakeUrl = await fake.start();
    callbacksUrl = await callbacks.start();
    const env = {
      LOG_LEVEL: 'warn',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: 'sk-fake-trace-key',
      PROVIDER_MAX_RETRIES: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const catalog = spawnApp('catalog', await freePort(), env);
    apps.push(catalog);
    await waitUntilLive(catalog);
    await loadCatalogWithFakeModels('2099.11.25', [
      fakeModel(CHAT_MODEL, { reasoning: false }),
      fakeModel(AGENT_MODEL, { tool_calling: true, reasoning: false, context_limit: 100_000 }),
      fakeModel(EMBEDDER, { model_type: 'embedding', reasoning: false }),
    ]);
    apps.push(
      spawnApp('invocation', await freePort(), { ...env, WORKFLOW_HTTP_URL_ALLOWLIST: '127.0.0.1' }),
      spawnApp('agent', await freePort(), env),
      spawnApp('asset', await freePort(), env),
      spawnApp('knowledge-base', await freePort(), { ...env, KB_EMBEDDING_MODEL: EMBEDDER }),
      spawnApp('callback-dispatcher', await freePort(), { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' }),
    );
    const gatewayApp = spawnApp('gateway', await freePort(), { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    apps.push(gatewayApp);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;

    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      'e2e traces',
      '--plan',
      'enterprise',
    ]);
    key = created.api_key;
    workspaceId = created.workspace_id;
    expect((await call('PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: EMBEDDER })).status).toBe(200);

    // A knowledge base holding the policy, searched by vector and keyword both (hybrid).
    const form = new FormData();
    form.append('file', new Blob([POLICY], { type: 'text/markdown' }), 'refund-policy.md');
    const uploaded = await call<{ asset: AssetRecord }>('POST', `/v1/public/workspaces/${workspaceId}/assets`, form);
    expect(uploaded.status).toBe(200);
    const made = await call<{ knowledge_base: KnowledgeBaseRecord }>('POST', `/v1/public/workspaces/${workspaceId}/knowledge_bases`, {
      knowledge_base: { name: 'Policies', search_type: 'hybrid', search_score_threshold: 0, search_chunk_limit: 3 },
    });
    expect(made.status).toBe(200);
    knowledgeBase = made.body.knowledge_base;
    const item = await call('POST', `/v1/private/knowledge_bases/${knowledgeBase.id}/items`, { asset_id: uploaded.body.asset.id });
    expect(item.status).toBe(200);
    await expectEventually(
      async () => {
        const items = await call<{ knowledge_base_items: KnowledgeBaseItemRecord[] }>(
          'GET',
          `/v1/public/workspaces/${workspaceId}/knowledge_bases/${knowledgeBase.id}/items`,
        );
        expect(items.body.knowledge_base_items).toEqual([expect.objectContaining({ run_status: 'completed' })]);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );

    const agentMade = await call<{ agent: AgentRecord }>('POST', `/v1/public/workspaces/${workspaceId}/agents`, {
      agent: { name: 'Refund desk', llm_model: AGENT_MODEL, model_type: 'llm', instruction_prompt: 'Answer from the knowledge base.' },
    });
    expect(agentMade.status).toBe(200);
    agent = agentMade.body.agent;
    expect((await call('PUT', `/v1/private/agents/${agent.id}/knowledge_bases`, { knowledge_base_ids: [knowledgeBase.id] })).status).toBe(
      200,
    );

    const file = join(mkdtempSync(join(tmpdir(), 'waggle-traces-')), 'traced.yaml');
    writeFileSync(
      file,
      `
prompts:
  - deployment: traced-hook
    variants:
      - name: default
        model: ${CHAT_MODEL}
        messages: [ { role: user, content: "{{ question }}" } ]
workflows:
  - deployment: traced-flow
    variants:
      - name: default
        inputs: { topic: { type: text, required: true } }
        output: "{{ summary.output }} | {{ answer.output }} | {{ status.output.status }}"
        steps:
          - { id: summary, type: prompt, model: ${CHAT_MODEL}, messages: [ { role: user, content: "Summarise {{ topic }}" } ] }
          - { id: answer, type: agent, agent: ${agent.id}, message: "What is the refund code word? {{ summary.output }}" }
          - { id: status, type: http, method: GET, url: "${callbacksUrl}/status" }
`,
    );
    const applied = await cliJson<{ prompts: AppliedDeployment[] }>(['apply', '-f', file, '--workspace', workspaceId]);
    hooked = applied.prompts.find((deployment) => deployment.deployment === 'traced-hook') as AppliedDeployment;
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await Promise.all([fake.stop(), callbacks.stop(), traces.stop()]);
  });

  it('a sync workflow (prompt, agent with knowledge_search, http) is one trace: a span per step, GenAI model calls, the tool and the search under the agent', async () => {
    fake.setModel(AGENT_MODEL, {
      turns: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'refund code word' } }] }, { response: 'PELICAN.' }],
    });
    const client = clientSpan();
    const response = await call<{ request_id: string; output: string }>(
      'POST',
      '/v1/workflow/invoke',
      { deployment: 'traced-flow', variant: 'default', inputs: { topic: PRIVATE_TOPIC } },
      { traceparent: client.header },
    );
    expect(response.status).toBe(200);
    expect(response.body.output).toContain('PELICAN.');
    const gatewaySpanId = expectTraceResponse(response.headers, client);

    const view = await traceOnce(client.traceId, client.spanId, (trace) => {
      for (const step of ['summary', 'answer', 'status']) expect(trace.named(`step ${step}`)).toHaveLength(1);
      expect(trace.named(/^execute_tool knowledge_search$/)).toHaveLength(1);
      expect(trace.named(/^search /, 'waggle-knowledge-base')).toHaveLength(1);
      expect(trace.named(`chat ${CHAT_MODEL}`)).toHaveLength(1);
      expect(trace.named(`chat ${AGENT_MODEL}`)).toHaveLength(2);
      expect(trace.named('POST /v1/workflow/invoke', 'waggle-gateway')).toHaveLength(1);
    });
    view.expectOneTree();
    const server = view.one('POST /v1/workflow/invoke', 'waggle-gateway');
    expect(server.kind).toBe(SPAN_KIND_SERVER);
    expect(server.spanId).toBe(gatewaySpanId);

    // A span per step, named by id, with its type, status and attempt, in the run's span.
    const run = view.one(/^workflow /, 'waggle-invocation');
    const steps = ['summary', 'answer', 'status'].map((id) => view.one(`step ${id}`, 'waggle-invocation'));
    expect(steps.map((step) => step.attributes)).toEqual([
      expect.objectContaining({
        'waggle.workflow.step.id': 'summary',
        'waggle.workflow.step.type': 'prompt',
        'waggle.workflow.step.status': 'completed',
        'waggle.workflow.step.attempt': 1,
      }),
      expect.objectContaining({
        'waggle.workflow.step.id': 'answer',
        'waggle.workflow.step.type': 'agent',
        'waggle.workflow.step.status': 'completed',
        'waggle.workflow.step.attempt': 1,
      }),
      expect.objectContaining({
        'waggle.workflow.step.id': 'status',
        'waggle.workflow.step.type': 'http',
        'waggle.workflow.step.status': 'completed',
        'waggle.workflow.step.attempt': 1,
      }),
    ]);
    expect(steps.every((step) => view.under(step, run))).toBe(true);
    const [summary, answer] = steps;

    // The prompt step's model call, in the GenAI conventions, under its step.
    const summaryCall = view.one(`chat ${CHAT_MODEL}`);
    expectGenAiChat(summaryCall, CHAT_MODEL);
    expect(view.under(summaryCall, summary)).toBe(true);

    // The agent step: the agent service's invoke_agent span under the step, its two model turns
    // and the knowledge_search tool under it, and the knowledge base's search under the tool.
    const invoked = view.one(/^invoke_agent /, 'waggle-agent');
    expect(view.under(invoked, answer)).toBe(true);
    expect(invoked.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agent.id,
      'gen_ai.agent.name': 'Refund desk',
    });
    for (const turn of view.named(`chat ${AGENT_MODEL}`)) {
      expectGenAiChat(turn, AGENT_MODEL);
      expect(view.under(turn, invoked)).toBe(true);
    }
    const tool = view.one('execute_tool knowledge_search', 'waggle-agent');
    expect(view.under(tool, invoked)).toBe(true);
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'knowledge_search' });
    const search = view.one(/^search /, 'waggle-knowledge-base');
    expect(view.under(search, tool)).toBe(true);
    expect(search.attributes).toMatchObject({ 'waggle.knowledge_base.id': knowledgeBase.id, 'waggle.search.type': 'hybrid' });
    expect(search.attributes['waggle.search.chunks']).toBeGreaterThan(0);
    // The query's embedding is a model call of its own, under the search.
    const embedding = view.one(`embeddings ${EMBEDDER}`, 'waggle-knowledge-base');
    expect(view.under(embedding, search)).toBe(true);
    expect(embedding.attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.usage.input_tokens': expect.any(Number) });

    // Less noise: no pool spans, database spans named by operation and table.
    const database = view.spans.filter(
      (span) => span.attributes['db.system.name'] === 'postgresql' || span.attributes['db.system'] === 'postgresql',
    );
    expect(view.named(/^pg(-pool)?\.connect$/)).toEqual([]);
    expect(database.length).toBeGreaterThan(0);
    expect(database.every((span) => /^[A-Z]+( \w+)?$/.test(span.name))).toBe(true);
    // The client's topic went into a prompt: without the content opt-in it is on no span.
    expect(JSON.stringify(view.spans)).not.toContain('Okavango');
    expect(traces.exports.join('\n')).not.toContain('sk-fake-trace-key');

    // The trace id is in the request's record too.
    await expectEventually(async () => {
      const record = await call<{ trace_id?: string }>('GET', `/v1/public/requests/${response.body.request_id}`);
      expect(record.body.trace_id).toBe(client.traceId);
    });

    const exportTo = process.env.WAGGLE_TRACE_EXPORT;
    if (exportTo) {
      mkdirSync(dirname(exportTo), { recursive: true });
      writeFileSync(exportTo, JSON.stringify({ title: 'POST /v1/workflow/invoke (traced-flow)', spans: view.spans }, null, 2));
    }
  });

  it('a prompt trigger and its callback are one trace: the callback carries traceparent naming its delivery span', async () => {
    const client = clientSpan();
    const variant = hooked.variants[0].variant_id;
    const response = await fetch(`${gateway}/v1/prompt/webhooks/${hooked.prompt_endpoint_id}/variants/${variant}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-webhook-secret': hooked.webhook_secret, traceparent: client.header },
      body: JSON.stringify({ inputs: { question: 'Is it open?' }, async: { callback_url: `${callbacksUrl}/traced-hook` } }),
    });
    expect(response.status).toBeLessThan(300);
    expectTraceResponse(response.headers, client);
    const [callback] = await expectEventually(() => {
      const arrived = callbacks.on('/traced-hook');
      expect(arrived).toHaveLength(1);
      return arrived;
    });
    const carried = String(callback.headers.traceparent ?? '');
    expect(carried).toMatch(new RegExp(`^00-${client.traceId}-[0-9a-f]{16}-01$`));

    const view = await traceOnce(client.traceId, client.spanId, (trace) => {
      expect(trace.named('callback delivery', 'waggle-callback-dispatcher')).toHaveLength(1);
      expect(trace.named(`chat ${CHAT_MODEL}`, 'waggle-invocation')).toHaveLength(1);
    });
    view.expectOneTree();
    const delivery = view.one('callback delivery', 'waggle-callback-dispatcher');
    // The receiver continues the trace from the delivery attempt's own span.
    expect(carried.split('-')[2]).toBe(delivery.spanId);
    expect(delivery.attributes).toMatchObject({ 'waggle.callback.attempt': 1, 'http.response.status_code': 200 });
    expectGenAiChat(view.one(`chat ${CHAT_MODEL}`, 'waggle-invocation'), CHAT_MODEL);
  });

  it('a streamed agent run is one trace: invoke_agent, each turn a GenAI chat span, the tool call and the search under it', async () => {
    fake.setModel(AGENT_MODEL, {
      turns: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'refund days' } }] }, { response: 'Within 14 days.' }],
    });
    const client = clientSpan();
    const response = await fetch(`${gateway}/v1/agent/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: client.header },
      body: JSON.stringify({ agent: agent.id, message: 'How long do refunds take?', streaming: true }),
    });
    expect(response.status).toBe(200);
    const gatewaySpanId = expectTraceResponse(response.headers, client);
    const events = await collectSse(response);
    expect(events.length).toBeGreaterThan(0);

    const view = await traceOnce(client.traceId, client.spanId, (trace) => {
      expect(trace.named(/^invoke_agent /, 'waggle-agent')).toHaveLength(1);
      expect(trace.named(`chat ${AGENT_MODEL}`)).toHaveLength(2);
      expect(trace.named('execute_tool knowledge_search')).toHaveLength(1);
      expect(trace.named(/^search /, 'waggle-knowledge-base')).toHaveLength(1);
      expect(trace.named('POST /v1/agent/invoke', 'waggle-gateway')).toHaveLength(1);
    });
    view.expectOneTree();
    expect(view.one('POST /v1/agent/invoke', 'waggle-gateway').spanId).toBe(gatewaySpanId);
    const invoked = view.one(/^invoke_agent /, 'waggle-agent');
    expect(invoked.status.code).not.toBe(STATUS_ERROR);
    const turns = view.named(`chat ${AGENT_MODEL}`);
    for (const turn of turns) {
      expectGenAiChat(turn, AGENT_MODEL);
      expect(view.under(turn, invoked)).toBe(true);
    }
    expect(turns.map((turn) => turn.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool-calls'], ['stop']]);
    const tool = view.one('execute_tool knowledge_search');
    expect(view.under(tool, invoked)).toBe(true);
    expect(view.under(view.one(/^search /, 'waggle-knowledge-base'), tool)).toBe(true);
  });
});
