import type { AgentRecord, KnowledgeBaseRecord } from '@waggle/contracts';
import {
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  knowledgeBaseWithDocument,
  loadCatalogWithFakeModels,
  OtlpReceiver,
  spawnApp,
  waitUntilLive,
  type AppProcess,
  type ReceivedSpan,
} from '@waggle/testing';

interface Workspace {
  id: string;
  key: string;
}

interface Invoked {
  request_id: string;
  response: string;
  tool_calls: Array<{ tool_name: string; tool_input: string; observation: string }>;
}

const AGENT_MODEL = 'fake-kb-agent';
const EMBEDDER = 'fake-kb-embedder';
const POLICY = [
  '# Refund policy',
  '',
  'Refunds are issued within 14 days of the purchase, to the card that paid. The code word for a refund request is PELICAN.',
  '',
  'Gift cards are never refunded; they can be moved to another account once.',
].join('\n');

/**
 * An agent answering from a knowledge base, through the whole stack over HTTP: a Markdown file
 * uploaded as an asset (multipart), a knowledge base that ingests it from the asset (the
 * asset staged through NATS, parsed, chunked, embedded by the fake provider, indexed), the
 * knowledge base attached to an agent by the private route, and the agent's knowledge_search
 * tool called by the fake model, whose observation carries the indexed passage. Every app
 * exports its spans: the ingestion's, the run's, the tool call's and the search's are read back.
 */
describe('agents with knowledge bases: the knowledge_search tool', () => {
  const fake = new FakeProviderServer({});
  const receiver = new OtlpReceiver();
  const apps: AppProcess[] = [];
  /** The item ingested into each knowledge base, by knowledge base id. */
  const itemOf = new Map<string, string>();
  let gateway: string;
  let a: Workspace;
  let b: Workspace;
  let agent: AgentRecord;
  let knowledgeBase: KnowledgeBaseRecord;
  let otherKnowledgeBase: KnowledgeBaseRecord;

  async function call<T>(who: Workspace, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${who.key}`,
        ...(body !== undefined && !(body instanceof FormData) && { 'content-type': 'application/json' }),
      },
      body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  async function workspace(name: string): Promise<Workspace> {
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      name,
      '--plan',
      'enterprise',
    ]);
    const who = { id: created.workspace_id, key: created.api_key };
    expect((await call(who, 'PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: EMBEDDER })).status).toBe(200);
    return who;
  }

  /** A knowledge base holding POLICY, ingested from an uploaded asset, once its item completed. */
  async function knowledgeBaseWithPolicy(who: Workspace, name: string): Promise<KnowledgeBaseRecord> {
    const { knowledgeBase: created, itemId } = await knowledgeBaseWithDocument(
      { gateway, ...who },
      {
        fileName: 'refund-policy.md',
        mediaType: 'text/markdown',
        text: POLICY,
        knowledgeBase: { name, search_type: 'full_text', search_score_threshold: 0, search_chunk_limit: 3 },
      },
    );
    itemOf.set(created.id, itemId);
    return created;
  }

  const attach = (who: Workspace, agentId: string, ids: string[]) =>
    call<Record<string, unknown>>(who, 'PUT', `/v1/private/agents/${agentId}/knowledge_bases`, { knowledge_base_ids: ids });
  const invoke = (who: Workspace, body: Record<string, unknown>) => call<Invoked>(who, 'POST', '/v1/agent/invoke', body);
  const searchThenAnswer = (query: string) => ({
    turns: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query } }] }, { response: 'Within 14 days; say PELICAN.' }],
  });

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const env = {
      LOG_LEVEL: 'warn',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: 'fake-key',
      PROVIDER_MAX_RETRIES: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: await receiver.start(),
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const catalog = spawnApp('catalog', await freePort(), env);
    apps.push(catalog);
    await waitUntilLive(catalog);
    await loadCatalogWithFakeModels('2099.12.7', [
      fakeModel(AGENT_MODEL, { tool_calling: true, context_limit: 100_000 }),
      fakeModel(EMBEDDER, { model_type: 'embedding', reasoning: false }),
    ]);
    apps.push(
      spawnApp('invocation', await freePort(), env),
      spawnApp('agent', await freePort(), env),
      spawnApp('asset', await freePort(), env),
      spawnApp('knowledge-base', await freePort(), { ...env, KB_EMBEDDING_MODEL: EMBEDDER }),
    );
    const gatewayApp = spawnApp('gateway', await freePort(), env);
    apps.push(gatewayApp);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;
    a = await workspace('e2e agent knowledge A');
    b = await workspace('e2e agent knowledge B');
    knowledgeBase = await knowledgeBaseWithPolicy(a, 'Policies');
    otherKnowledgeBase = await knowledgeBaseWithPolicy(b, 'B policies');
    const created = await call<{ agent: AgentRecord }>(a, 'POST', `/v1/public/workspaces/${a.id}/agents`, {
      agent: { name: 'Support', llm_model: AGENT_MODEL, model_type: 'llm', instruction_prompt: 'Answer from the knowledge base.' },
    });
    expect(created.status).toBe(200);
    agent = created.body.agent;
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
    await receiver.stop();
  });

  /** The span named `name` that `where` picks, once exported, and its whole trace (every service's spans so far). */
  async function exported(name: string, where: (span: ReceivedSpan) => boolean = () => true) {
    let found: ReceivedSpan | undefined;
    await expectEventually(() => {
      found = receiver.spans.find((span) => span.name === name && where(span));
      expect(found).toBeDefined();
    });
    const span = found as ReceivedSpan;
    return { span, trace: () => receiver.trace(span.traceId) };
  }
  const childOf = (trace: ReceivedSpan[], parent: ReceivedSpan, name: string) =>
    trace.find((span) => span.parentSpanId === parent.spanId && span.name === name);

  it("attaches only knowledge bases of the agent's workspace, by the private route", async () => {
    const foreign = await attach(a, agent.id, [otherKnowledgeBase.id]);
    expect(foreign.status).toBe(422);
    expect(foreign.body).toMatchObject({ error: 'Knowledge base not found', error_code: 'resource_not_found' });
    expect((await attach(a, agent.id, ['00000000-0000-4000-8000-000000000000'])).status).toBe(422);
    expect((await attach(b, agent.id, [otherKnowledgeBase.id])).status).toBe(422);
    const attached = await attach(a, agent.id, [knowledgeBase.id]);
    expect(attached.status).toBe(200);
    expect(attached.body).toEqual({ knowledge_bases: { agent_id: agent.id, knowledge_base_ids: [knowledgeBase.id] } });
    expect((await call(a, 'GET', `/v1/private/agents/${agent.id}/knowledge_bases`)).body).toEqual(attached.body);
  });

  it('answers from the knowledge base: the model calls knowledge_search and gets the indexed passage as the observation', async () => {
    expect((await attach(a, agent.id, [knowledgeBase.id])).status).toBe(200);
    fake.setModel(AGENT_MODEL, searchThenAnswer('refund days code word'));
    const from = fake.requests.length;
    const answer = await invoke(a, { agent: agent.id, message: 'How long do refunds take?' });
    expect(answer.status).toBe(200);
    expect(answer.body.response).toBe('Within 14 days; say PELICAN.');
    expect(answer.body.tool_calls).toHaveLength(1);
    const [toolCall] = answer.body.tool_calls;
    expect(toolCall.tool_name).toBe('knowledge_search');
    expect(JSON.parse(toolCall.tool_input)).toEqual({ query: 'refund days code word' });
    const observation = JSON.parse(toolCall.observation) as {
      query: string;
      results: Array<{ knowledge_base_id: string; item_name: string; content: string; score: number }>;
    };
    expect(observation.results[0]).toMatchObject({
      knowledge_base_id: knowledgeBase.id,
      item_name: 'refund-policy.md',
      content: expect.stringContaining('PELICAN'),
    });
    expect(observation.results[0].score).toBeGreaterThan(0);
    // The model was offered the tool, and its second turn carried the passage as the tool result.
    const sent = fake.requests.slice(from).filter((request) => request.model === AGENT_MODEL);
    expect(sent).toHaveLength(2);
    expect(JSON.stringify((sent[0].body as { tools?: unknown }).tools)).toContain('knowledge_search');
    expect(JSON.stringify(sent[1].body)).toContain('PELICAN');
  });

  it('traces the ingestion of an item: its span, with parse, chunk, embed and index under it', async () => {
    const itemId = itemOf.get(knowledgeBase.id) as string;
    const { span: ingest, trace } = await exported(`ingest ${itemId}`);
    expect(ingest.service).toBe('waggle-knowledge-base');
    expect(ingest.status.code).not.toBe(2);
    expect(ingest.attributes).toMatchObject({
      'waggle.knowledge_base.id': knowledgeBase.id,
      'waggle.document.id': itemId,
      'waggle.document.type': 'md',
      'waggle.document.source': 'asset',
      'waggle.ingest.chunks': expect.any(Number),
    });
    expect(ingest.attributes['waggle.ingest.chunks']).toBeGreaterThan(0);
    const phases = trace().filter(
      (span) => span.parentSpanId === ingest.spanId && ['parse', 'chunk', 'embed', 'index'].includes(span.name),
    );
    expect(phases.map((span) => span.name)).toEqual(['parse', 'chunk', 'embed', 'index']);
    // The asset is staged over NATS while the item is parsed.
    const [parse, , , index] = phases;
    expect(childOf(trace(), parse, 'send asset.assets.stage')).toBeDefined();
    // The chunks are written (and the item completed) in the index phase: its statements are its children.
    expect(trace().some((span) => span.parentSpanId === index.spanId && span.service === 'waggle-knowledge-base')).toBe(true);
    // No document text on any span.
    expect(receiver.exports.some((body) => body.includes('PELICAN'))).toBe(false);
  });

  it('traces a run: invoke_agent, its knowledge_search tool call, the NATS request under it and the search in the service', async () => {
    expect((await attach(a, agent.id, [knowledgeBase.id])).status).toBe(200);
    fake.setModel(AGENT_MODEL, searchThenAnswer('refund days code word'));
    const answer = await invoke(a, { agent: agent.id, message: 'How long do refunds take?' });
    expect(answer.status).toBe(200);
    const { span: run, trace } = await exported(
      'invoke_agent Support',
      (span) => span.attributes['waggle.agent.run.id'] === answer.body.request_id,
    );
    expect(run.service).toBe('waggle-agent');
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agent.id,
      'gen_ai.agent.name': 'Support',
      'waggle.agent.run.status': 'completed',
    });
    const tool = childOf(trace(), run, 'execute_tool knowledge_search') as ReceivedSpan;
    expect(tool).toBeDefined();
    expect(tool.attributes).toEqual(
      expect.objectContaining({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'knowledge_search',
        'gen_ai.tool.call.id': expect.any(String),
        'gen_ai.tool.type': 'function',
      }),
    );
    expect(tool.status.code).not.toBe(2);
    const send = childOf(trace(), tool, 'send knowledge-base.search') as ReceivedSpan;
    expect(send).toBeDefined();
    // The knowledge-base service exports on its own schedule.
    await expectEventually(() => expect(trace().some((span) => span.name === `search ${knowledgeBase.id}`)).toBe(true));
    const search = trace().find((span) => span.name === `search ${knowledgeBase.id}`) as ReceivedSpan;
    expect(search.service).toBe('waggle-knowledge-base');
    expect(trace().find((span) => span.spanId === search.parentSpanId)?.parentSpanId).toBe(send.spanId);
    expect(search.attributes).toMatchObject({
      'waggle.knowledge_base.id': knowledgeBase.id,
      'waggle.search.type': 'full_text',
      'waggle.search.keyword_ms': expect.any(Number),
    });
    expect(search.attributes['waggle.search.chunks']).toBeGreaterThan(0);
    // A full-text search neither embeds the query nor ranks by vector.
    expect([search.attributes['waggle.search.embed_ms'], search.attributes['waggle.search.vector_ms']]).toEqual([undefined, undefined]);
    // The query is on no span.
    expect(trace().some((span) => JSON.stringify(span.attributes).includes('refund days code word'))).toBe(false);
  });

  it('puts a tool call that failed in ERROR', async () => {
    expect((await attach(a, agent.id, [knowledgeBase.id])).status).toBe(200);
    fake.setModel(AGENT_MODEL, {
      turns: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: '' } }] }, { response: 'Sorry.' }],
    });
    const answer = await invoke(a, { agent: agent.id, message: 'Anything?' });
    expect(answer.status).toBe(200);
    const { span: run, trace } = await exported(
      'invoke_agent Support',
      (span) => span.attributes['waggle.agent.run.id'] === answer.body.request_id,
    );
    const tool = childOf(trace(), run, 'execute_tool knowledge_search') as ReceivedSpan;
    expect(tool.status.code).toBe(2);
    expect(tool.attributes['error.type']).toBe('tool_error');
    // The run itself answered.
    expect(run.status.code).not.toBe(2);
  });

  it('times every leg of a hybrid search on its span, the query embedding among them', async () => {
    const answer = await call<{ response: { chunks: unknown[] } }>(
      a,
      'POST',
      `/v1/public/workspaces/${a.id}/knowledge_bases/${knowledgeBase.id}/search`,
      {
        search_query: 'gift cards moved once',
        search_type: 'hybrid',
        search_chunk_limit: 3,
        search_score_threshold: 0,
      },
    );
    expect(answer.status).toBe(200);
    const { span: search, trace } = await exported(
      `search ${knowledgeBase.id}`,
      (span) => span.attributes['waggle.search.type'] === 'hybrid',
    );
    expect(search.attributes).toMatchObject({
      'waggle.knowledge_base.id': knowledgeBase.id,
      'waggle.search.chunks': answer.body.response.chunks.length,
      'waggle.search.embed_ms': expect.any(Number),
      'waggle.search.vector_ms': expect.any(Number),
      'waggle.search.keyword_ms': expect.any(Number),
    });
    expect(search.attributes['waggle.search.rerank_ms']).toBeUndefined();
    expect(trace().some((span) => JSON.stringify(span.attributes).includes('gift cards moved once'))).toBe(false);
  });

  it('ends a streamed run span when the stream ends, and when the client leaves mid-stream', async () => {
    fake.setModel(AGENT_MODEL, { response: 'one two three four five six' });
    const streamed = await fetch(`${gateway}/v1/agent/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: agent.id, message: 'Count', streaming: true }),
    });
    const events = (await collectSse(streamed)) as Array<{ request_id?: string }>;
    const finished = await exported('invoke_agent Support', (span) => span.attributes['waggle.agent.run.id'] === events[0].request_id);
    expect(finished.span.attributes['waggle.agent.run.status']).toBe('completed');

    // The model is held after its first fragment; the client reads it, then goes away.
    const gate = fake.gate(AGENT_MODEL, 1);
    const leaving = new AbortController();
    const response = await fetch(`${gateway}/v1/agent/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: agent.id, message: 'Count again', streaming: true }),
      signal: leaving.signal,
    });
    await gate.reached;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const requestId = /"request_id":"([^"]+)"/.exec(first)?.[1];
    expect(requestId).toBeDefined();
    leaving.abort();
    const left = await exported('invoke_agent Support', (span) => span.attributes['waggle.agent.run.id'] === requestId);
    expect(left.span.attributes['waggle.agent.run.status']).toBe('cancelled');
    gate.release();
  });

  it('streams the search as a tool event of type knowledge_base', async () => {
    fake.setModel(AGENT_MODEL, searchThenAnswer('gift cards'));
    const response = await fetch(`${gateway}/v1/agent/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: agent.id, message: 'Can I refund a gift card?', streaming: true }),
    });
    expect(response.status).toBe(200);
    const events = (await collectSse(response)) as Array<Record<string, unknown> & { type?: string }>;
    const tool = events.find((event) => event.type === 'tool');
    expect(tool).toMatchObject({ tool: 'knowledge_search', tool_type: 'knowledge_base', tool_input: { query: 'gift cards' } });
    expect(String(tool?.observation)).toContain('Gift cards are never refunded');
  });

  it('offers no knowledge_search to an agent without knowledge bases', async () => {
    expect((await attach(a, agent.id, [])).status).toBe(200);
    fake.setModel(AGENT_MODEL, {});
    const from = fake.requests.length;
    expect((await invoke(a, { agent: agent.id, message: 'Hello' })).status).toBe(200);
    const [sent] = fake.requests.slice(from).filter((request) => request.model === AGENT_MODEL);
    expect(JSON.stringify(sent.body)).not.toContain('knowledge_search');
  });

  it('names a knowledge base deleted since it was attached in the observation, and the run still answers', async () => {
    const doomed = await knowledgeBaseWithPolicy(a, 'Doomed');
    expect((await attach(a, agent.id, [knowledgeBase.id, doomed.id])).status).toBe(200);
    expect((await call(a, 'DELETE', `/v1/public/workspaces/${a.id}/knowledge_bases/${doomed.id}`)).status).toBe(200);
    fake.setModel(AGENT_MODEL, searchThenAnswer('refund'));
    const answer = await invoke(a, { agent: agent.id, message: 'Refunds?' });
    expect(answer.status).toBe(200);
    const observation = JSON.parse(answer.body.tool_calls[0].observation) as {
      results: Array<{ knowledge_base_id: string }>;
      errors: Array<{ knowledge_base_id: string; error: string }>;
    };
    expect(observation.results.map((result) => result.knowledge_base_id)).toEqual(expect.arrayContaining([knowledgeBase.id]));
    expect(observation.results.some((result) => result.knowledge_base_id === doomed.id)).toBe(false);
    expect(observation.errors).toEqual([{ knowledge_base_id: doomed.id, error: 'Knowledge base not found' }]);
  });
});
