import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type FetchLike,
  type Progress,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AgentRecord, KnowledgeBaseRecord, RequestListItem, RequestLookup } from '@waggle/contracts';
import {
  applyDefinitions,
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  knowledgeBaseWithDocument,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
  type FakeRequestRecord,
} from '@waggle/testing';

const PROMPT_MODEL = 'mcp-chat';
const HELD_MODEL = 'mcp-held';
const AGENT_MODEL = 'mcp-agent';
const EMBEDDER = 'mcp-embedder';
const ALLOWED_ORIGIN = 'https://console.example.com';
const REQUEST_ID = /^req_[0-9a-f]{32}$/;
const TRACEPARENT = /^00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]$/;

const PLACE_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city', 'population'],
  additionalProperties: false,
};
const PARIS = { city: 'Paris', population: 2_100_000 };

/** Workspace A's definitions: published prompt variants (text, structured), one not published, a published workflow, a held prompt. */
const DEFINITIONS = `
prompts:
  - deployment: helpdesk
    variants:
      - name: default
        model: ${PROMPT_MODEL}
        messages:
          - { role: system, content: "You answer for {{ product }}." }
          - { role: user, content: "{{ question }}" }
        publish: { mcp: true, description: "Answers a question about a product" }
      - name: places
        model: ${PROMPT_MODEL}
        messages:
          - { role: user, content: "Name a big city of {{ country }}" }
        response_format: { type: json_schema, name: place, schema: ${JSON.stringify(PLACE_SCHEMA)} }
        publish: { mcp: true, tool_name: find_city }
      - name: internal
        model: ${PROMPT_MODEL}
        messages:
          - { role: user, content: "{{ question }}" }
  - deployment: slow
    variants:
      - name: default
        model: ${HELD_MODEL}
        messages:
          - { role: user, content: "Cancel me about {{ topic }}" }
        publish: { mcp: true }
workflows:
  - deployment: brief
    variants:
      - name: default
        inputs:
          topic: { type: text, required: true }
          depth: { type: number, required: false, default: 2 }
        output: "{{ summary.output }}"
        steps:
          - { id: outline, type: template, text: "Outline of {{ topic }} at depth {{ depth }}" }
          - { id: draft, type: prompt, model: ${PROMPT_MODEL}, messages: [ { role: user, content: "Draft: {{ outline.output }}" } ] }
          - { id: summary, type: template, text: "Summary: {{ draft.output }}" }
        publish: { mcp: true }
`;

const POLICY = [
  '# Refund policy',
  '',
  'Customers may return any item within 14 days of delivery for a full refund.',
  'Refunds are paid back to the original payment method within five business days.',
].join('\n');

interface Workspace {
  id: string;
  key: string;
}

type ModelMessage = { role: string; content: unknown };
const messagesOf = (record: FakeRequestRecord) => (record.body as { messages: ModelMessage[] }).messages;
const textOf = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;
const requestIdOf = (result: CallToolResult) => (result._meta as Record<string, unknown> | undefined)?.['waggle/request_id'] as string;

/**
 * Waggle as an MCP server (the spec's decisions, MCP: "Waggle as a server", "exposed tools"),
 * driven over HTTP by the official clients against the whole stack (gateway, invocation, agent,
 * knowledge base, asset, catalog) with the fake provider behind it: the current SDK's `Client`
 * on the 2026-07-28 revision (auto-negotiated) and on the 2025 handshake, and the 1.x SDK's
 * `Client` on 2025-11-25 and 2025-06-18. Published prompts, workflows, agents and the knowledge
 * base search are listed and called as tools of the key's workspace only; every call is a run in
 * the ledger with `surface: "mcp"`, metered, traced, cancellable; the edge refuses a bad key,
 * an origin not allowed, the transport's other methods and a body over 1 MiB.
 */
describe('the MCP server at POST /v1/mcp, driven by MCP clients', () => {
  const fake = new FakeProviderServer({});
  const apps: AppProcess[] = [];
  const clients: Array<{ close(): Promise<void> }> = [];
  let gateway: string;
  let endpoint: URL;
  let a: Workspace;
  let b: Workspace;
  let agent: AgentRecord;
  let knowledgeBase: KnowledgeBaseRecord;
  /** Every request the clients' fetch sent (its headers and body), with the answer's status and headers. */
  const sent: Array<{ url: string; method: string; requestHeaders: Headers; body: string; status: number; headers: Headers }> = [];

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

  async function workspace(name: string, plan = 'enterprise'): Promise<Workspace> {
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', name, '--plan', plan]);
    return { id: created.workspace_id, key: created.api_key };
  }

  /** A fetch that records what it sent and what came back (headers and status; bodies of requests). */
  const recordingFetch: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    sent.push({
      url: String(url),
      method: init?.method ?? 'GET',
      requestHeaders: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? init.body : '',
      status: response.status,
      headers: response.headers,
    });
    return response;
  };

  /** The current SDK's client with the key as its bearer token: `auto` probes and lands on 2026-07-28; `legacy` runs the 2025 handshake. */
  async function connect(who: Workspace, mode: 'auto' | 'legacy'): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, { authProvider: { token: async () => who.key }, fetch: recordingFetch }),
    );
    clients.push(client);
    return client;
  }

  /**
   * The 1.x SDK's client. It offers 2025-11-25, its latest; `version` 2025-06-18 rewrites its
   * `initialize` to offer that revision instead (the client has no option for it), which the
   * server accepts, and every later request of the client then says 2025-06-18.
   */
  async function connectV1(who: Workspace, version: '2025-11-25' | '2025-06-18'): Promise<ClientV1> {
    const offering: FetchLike = (url, init) => {
      const body = typeof init?.body === 'string' ? init.body : undefined;
      if (version === '2025-06-18' && body?.includes('"method":"initialize"'))
        return recordingFetch(url, { ...init, body: body.replace('"protocolVersion":"2025-11-25"', '"protocolVersion":"2025-06-18"') });
      return recordingFetch(url, init);
    };
    const client = new ClientV1({ name: 'e2e-v1', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransportV1(endpoint, { requestInit: { headers: { authorization: `Bearer ${who.key}` } }, fetch: offering }),
    );
    clients.push(client);
    return client;
  }

  /** The run's ledger record once it has ended. */
  const ended = (who: Workspace, requestId: string) =>
    expectEventually(async () => {
      const record = await call<RequestLookup>(who, 'GET', `/v1/public/requests/${requestId}`);
      expect(record.status).toBe(200);
      expect(['completed', 'failed', 'cancelled']).toContain(record.body.status);
      return record.body;
    });

  /** A knowledge base holding POLICY, ingested from an uploaded asset, once its item completed. */
  async function knowledgeBaseWithPolicy(who: Workspace, name: string): Promise<KnowledgeBaseRecord> {
    expect((await call(who, 'PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: EMBEDDER })).status).toBe(200);
    const { knowledgeBase: created } = await knowledgeBaseWithDocument(
      { gateway, ...who },
      {
        fileName: 'refund-policy.md',
        mediaType: 'text/markdown',
        text: POLICY,
        knowledgeBase: {
          name,
          description: 'How refunds work',
          search_type: 'full_text',
          search_score_threshold: 0,
          search_chunk_limit: 3,
        },
      },
    );
    return created;
  }

  /** A raw POST to the endpoint, as a client that is not an SDK would send it. */
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
  const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    const catalog = spawnApp('catalog', await freePort(), env);
    apps.push(catalog);
    await waitUntilLive(catalog);
    await loadCatalogWithFakeModels('2099.11.28', [
      fakeModel(PROMPT_MODEL, { tool_calling: true, json_schema: true }),
      fakeModel(HELD_MODEL, {}),
      fakeModel(AGENT_MODEL, { tool_calling: true, context_limit: 100_000 }),
      fakeModel(EMBEDDER, { model_type: 'embedding', reasoning: false }),
    ]);
    apps.push(
      spawnApp('invocation', await freePort(), env),
      spawnApp('agent', await freePort(), env),
      spawnApp('asset', await freePort(), env),
      spawnApp('knowledge-base', await freePort(), { ...env, KB_EMBEDDING_MODEL: EMBEDDER }),
    );
    const gatewayApp = spawnApp('gateway', await freePort(), {
      ...env,
      MCP_ALLOWED_ORIGINS: `${ALLOWED_ORIGIN}, https://other.example.com`,
    });
    apps.push(gatewayApp);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;
    endpoint = new URL(`${gateway}/v1/mcp`);
    a = await workspace('e2e mcp A');
    b = await workspace('e2e mcp B');
    await applyDefinitions(DEFINITIONS, a.id);
    // B publishes a prompt too: never A's to see or call.
    await applyDefinitions(
      `
prompts:
  - deployment: secret
    variants:
      - name: default
        model: ${PROMPT_MODEL}
        messages: [ { role: user, content: "{{ question }}" } ]
        publish: { mcp: true, tool_name: b_only_tool }
`,
      b.id,
    );
    const created = await call<{ agent: AgentRecord }>(a, 'POST', `/v1/public/workspaces/${a.id}/agents`, {
      agent: {
        name: 'Front Desk',
        llm_model: AGENT_MODEL,
        model_type: 'llm',
        description: 'Greets visitors',
        instruction_prompt: 'You are the front desk.',
        publish: { mcp: true },
      },
    });
    expect(created.status).toBe(200);
    agent = created.body.agent;
    knowledgeBase = await knowledgeBaseWithPolicy(a, 'Policies');
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
  });

  afterEach(() => fake.reset());

  describe('tools/list', () => {
    const EXPECTED = [
      'find_city',
      'prompt_helpdesk_default',
      'prompt_slow_default',
      'workflow_brief_default',
      'agent_front_desk',
      'knowledge_search',
    ];

    it('lists the published artifacts of the key’s workspace in a stable order, to every client and revision', async () => {
      const modern = await connect(a, 'auto');
      expect(modern.getProtocolEra()).toBe('modern');
      const legacy = await connect(a, 'legacy');
      expect(legacy.getProtocolEra()).toBe('legacy');
      const v1 = await connectV1(a, '2025-11-25');
      const v1Older = await connectV1(a, '2025-06-18');
      for (const client of [modern, legacy, v1, v1Older]) {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(EXPECTED);
      }
      // Each client settled on its revision: its tools/list says which (the 2026 era in the request's envelope).
      const lists = sent.filter((request) => request.body.includes('"tools/list"')).slice(-4);
      expect(lists.map((request) => request.requestHeaders.get('mcp-protocol-version'))).toEqual([
        '2026-07-28',
        '2025-11-25',
        '2025-11-25',
        '2025-06-18',
      ]);
      expect(v1Older.getServerVersion()).toMatchObject({ name: 'waggle' });
    });

    it('describes each tool: template variables as required strings, a response format as the output schema, workflow inputs, the agent, the search', async () => {
      const client = await connect(a, 'auto');
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('prompt_helpdesk_default')).toEqual({
        name: 'prompt_helpdesk_default',
        description: 'Answers a question about a product',
        inputSchema: {
          type: 'object',
          properties: { product: { type: 'string' }, question: { type: 'string' } },
          required: ['product', 'question'],
          additionalProperties: false,
        },
      });
      expect(byName.get('find_city')).toMatchObject({
        inputSchema: { properties: { country: { type: 'string' } }, required: ['country'] },
        outputSchema: PLACE_SCHEMA,
      });
      expect(byName.get('workflow_brief_default')).toMatchObject({
        description: 'Runs the workflow "brief" (variant "default").',
        inputSchema: {
          type: 'object',
          properties: { topic: { type: 'string' }, depth: { type: 'number', default: 2 } },
          required: ['topic'],
        },
      });
      expect(byName.get('workflow_brief_default')?.outputSchema).toBeUndefined();
      expect(byName.get('agent_front_desk')).toMatchObject({
        description: 'Greets visitors',
        inputSchema: { properties: { message: { type: 'string' }, thread_id: { type: 'string' } }, required: ['message'] },
        outputSchema: { properties: { answer: { type: 'string' }, thread_id: { type: 'string' } }, required: ['answer', 'thread_id'] },
      });
      expect(byName.get('knowledge_search')).toMatchObject({
        inputSchema: {
          properties: {
            knowledge_base: { type: 'string' },
            query: { type: 'string' },
            top_k: { type: 'integer', minimum: 1, maximum: 20 },
          },
          required: ['knowledge_base', 'query'],
        },
      });
      expect(byName.get('knowledge_search')?.description).toContain(`${knowledgeBase.id} (Policies: How refunds work)`);
    });

    it('never lists another workspace’s tools, and answers a call to one as an unknown tool', async () => {
      const client = await connect(a, 'auto');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).not.toContain('b_only_tool');
      const refused = await client.callTool({ name: 'b_only_tool', arguments: { question: 'x' } }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ProtocolError);
      expect(refused).toMatchObject({ code: ProtocolErrorCode.InvalidParams, message: expect.stringContaining('b_only_tool') });
      // B sees its own, and none of A's.
      const theirs = await (await connect(b, 'legacy')).listTools();
      expect(theirs.tools.map((tool) => tool.name)).toEqual(['b_only_tool']);
    });
  });

  describe('tools/call', () => {
    it('runs a prompt variant with its arguments as the template’s variables and answers its text; the run is in the ledger as mcp', async () => {
      fake.setModel(PROMPT_MODEL, { response: 'Waggle runs your prompts.' });
      const from = fake.requests.length;
      const client = await connect(a, 'auto');
      const result = await client.callTool({ name: 'prompt_helpdesk_default', arguments: { product: 'Waggle', question: 'What is it?' } });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: 'Waggle runs your prompts.' }]);
      const requestId = requestIdOf(result);
      expect(requestId).toMatch(REQUEST_ID);
      const [model] = fake.requests.slice(from).filter((record) => record.model === PROMPT_MODEL);
      expect(messagesOf(model)).toEqual([
        { role: 'system', content: 'You answer for Waggle.' },
        { role: 'user', content: 'What is it?' },
      ]);
      const record = await ended(a, requestId);
      expect(record).toMatchObject({ status: 'completed', request_type: 'prompt', surface: 'mcp', message: 'What is it?' });
      // The run is the HTTP request's: its answer's x-request-id and traceparent name the run and its trace.
      const answered = sent.find((request) => request.headers.get('x-request-id') === requestId);
      expect(answered).toBeDefined();
      expect(record.trace_id).toBe(TRACEPARENT.exec(answered?.headers.get('traceparent') ?? '')?.[1]);
    });

    it('answers a variant with a response format as structured content matching its output schema, on every client', async () => {
      fake.setModel(PROMPT_MODEL, { json: { answer: 'valid', value: PARIS } });
      for (const client of [await connect(a, 'auto'), await connect(a, 'legacy'), await connectV1(a, '2025-06-18')]) {
        const result = (await client.callTool({ name: 'find_city', arguments: { country: 'France' } })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual(PARIS);
        expect(JSON.parse(textOf(result))).toEqual(PARIS);
      }
    });

    it('runs a workflow, one progress notification per finished step received through onprogress, and answers its output', async () => {
      fake.setModel(PROMPT_MODEL, { response: 'a short draft' });
      const client = await connect(a, 'auto');
      const progress: Progress[] = [];
      const result = await client.callTool(
        { name: 'workflow_brief_default', arguments: { topic: 'bees' } },
        { onprogress: (update) => progress.push(update) },
      );
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe('Summary: a short draft');
      expect(progress).toEqual([
        { progress: 1, message: 'outline' },
        { progress: 2, message: 'draft' },
        { progress: 3, message: 'summary' },
      ]);
      const record = await ended(a, requestIdOf(result));
      expect(record).toMatchObject({ status: 'completed', request_type: 'workflow', surface: 'mcp' });
      // Without a progress token the same call sends none, and the 1.x client runs it too.
      const legacyProgress: Progress[] = [];
      const v1 = await connectV1(a, '2025-11-25');
      const again = await v1.callTool({ name: 'workflow_brief_default', arguments: { topic: 'ants', depth: 1 } }, undefined, {
        onprogress: (update) => legacyProgress.push(update),
      });
      expect(textOf(again as CallToolResult)).toBe('Summary: a short draft');
      expect(legacyProgress.map((update) => update.message)).toEqual(['outline', 'draft', 'summary']);
      const quiet = await client.callTool({ name: 'workflow_brief_default', arguments: { topic: 'wasps' } });
      expect(textOf(quiet)).toBe('Summary: a short draft');
    });

    it('talks to an agent over two calls on one thread: the second passes the first’s thread_id and the model sees the history', async () => {
      fake.setModel(AGENT_MODEL, { response: 'Welcome, Ada.' });
      const client = await connect(a, 'auto');
      const first = await client.callTool({ name: 'agent_front_desk', arguments: { message: 'Hello, I am Ada.' } });
      expect(first.isError).toBeFalsy();
      const { answer, thread_id: threadId } = first.structuredContent as { answer: string; thread_id: string };
      expect(answer).toBe('Welcome, Ada.');
      expect(threadId).toEqual(expect.any(String));
      fake.setModel(AGENT_MODEL, { response: 'You are Ada.' });
      const from = fake.requests.length;
      const progress: Progress[] = [];
      const second = await client.callTool(
        { name: 'agent_front_desk', arguments: { message: 'Who am I?', thread_id: threadId } },
        { onprogress: (update) => progress.push(update) },
      );
      expect(second.structuredContent).toEqual({ answer: 'You are Ada.', thread_id: threadId });
      expect(progress).toEqual([{ progress: 1, message: 'model turn' }]);
      const [model] = fake.requests.slice(from).filter((record) => record.model === AGENT_MODEL);
      expect(messagesOf(model)).toEqual([
        { role: 'system', content: 'You are the front desk.' },
        { role: 'user', content: 'Hello, I am Ada.' },
        { role: 'assistant', content: 'Welcome, Ada.' },
        { role: 'user', content: 'Who am I?' },
      ]);
      const record = await ended(a, requestIdOf(second));
      expect(record).toMatchObject({ status: 'completed', request_type: 'agent', surface: 'mcp', requestable_id: agent.id });
    });

    it('tells an agent’s tool calls and model turns as progress, and answers the turn’s text', async () => {
      expect(
        (await call(a, 'PUT', `/v1/private/agents/${agent.id}/knowledge_bases`, { knowledge_base_ids: [knowledgeBase.id] })).status,
      ).toBe(200);
      try {
        fake.setModel(AGENT_MODEL, {
          turns: [{ toolCalls: [{ name: 'knowledge_search', arguments: { query: 'refund' } }] }, { response: 'Within 14 days.' }],
        });
        const client = await connectV1(a, '2025-11-25');
        const progress: Progress[] = [];
        const result = (await client.callTool({ name: 'agent_front_desk', arguments: { message: 'Can I get a refund?' } }, undefined, {
          onprogress: (update) => progress.push(update),
        })) as CallToolResult;
        expect(result.structuredContent).toEqual({ answer: 'Within 14 days.', thread_id: expect.any(String) });
        expect(progress).toEqual([
          { progress: 1, message: 'tool call knowledge_search' },
          { progress: 2, message: 'model turn' },
        ]);
      } finally {
        await call(a, 'PUT', `/v1/private/agents/${agent.id}/knowledge_bases`, { knowledge_base_ids: [] });
      }
    });

    it('searches a knowledge base with an ingested document, recorded in the ledger as a knowledge_search run', async () => {
      const client = await connect(a, 'legacy');
      const result = await client.callTool({
        name: 'knowledge_search',
        arguments: { knowledge_base: knowledgeBase.id, query: 'refund within 14 days', top_k: 2 },
      });
      expect(result.isError).toBeFalsy();
      const { chunks } = result.structuredContent as { chunks: Array<{ content: string; item_name: string; score: number }> };
      expect(chunks.length).toBeGreaterThan(0);
      expect(chunks.length).toBeLessThanOrEqual(2);
      expect(chunks[0]).toMatchObject({ item_name: 'refund-policy.md', content: expect.stringContaining('14 days') });
      const record = await ended(a, requestIdOf(result));
      expect(record).toMatchObject({
        status: 'completed',
        request_type: 'knowledge_search',
        requestable_type: 'knowledge_base',
        requestable_id: knowledgeBase.id,
        surface: 'mcp',
        message: 'refund within 14 days',
      });
    });

    it('answers a failed run as an isError result with the catalog code and the request id, and bad arguments as invalid params', async () => {
      const client = await connect(a, 'auto');
      // Another workspace's knowledge base is not found: a refusal of the run, in its result.
      const other = await knowledgeBaseOf(b);
      const refused = await client.callTool({ name: 'knowledge_search', arguments: { knowledge_base: other, query: 'refund' } });
      expect(refused.isError).toBe(true);
      const failure = JSON.parse(textOf(refused)) as { error_code: string; message: string; request_id: string };
      expect(failure).toEqual({ error_code: 'resource_not_found', message: 'Knowledge base not found', request_id: requestIdOf(refused) });
      expect(failure.request_id).toMatch(REQUEST_ID);
      const provider = await (async () => {
        fake.setModel(PROMPT_MODEL, { error: { status: 400, message: 'no' } });
        return client.callTool({ name: 'prompt_helpdesk_default', arguments: { product: 'Waggle', question: 'Fail?' } });
      })();
      expect(provider.isError).toBe(true);
      expect(JSON.parse(textOf(provider))).toMatchObject({ error_code: expect.any(String), request_id: requestIdOf(provider) });
      expect(await ended(a, requestIdOf(provider))).toMatchObject({ status: 'failed', surface: 'mcp' });
      const badArguments = await client
        .callTool({ name: 'prompt_helpdesk_default', arguments: { product: 'Waggle' } })
        .catch((error: unknown) => error);
      expect(badArguments).toBeInstanceOf(ProtocolError);
      expect(badArguments).toMatchObject({
        code: ProtocolErrorCode.InvalidParams,
        message: expect.stringContaining('prompt_helpdesk_default'),
      });
    });

    it('cancels the run when the client aborts the call, whatever its revision: the run ends cancelled in the ledger', async () => {
      // A 2026 client closes the call's stream; a 2025 client POSTs notifications/cancelled on its own.
      const callers: Array<[string, (args: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>]> = [
        [
          '2026-07-28',
          async (args, signal) => (await connect(a, 'auto')).callTool({ name: 'prompt_slow_default', arguments: args }, { signal }),
        ],
        [
          '2025-11-25',
          async (args, signal) => (await connect(a, 'legacy')).callTool({ name: 'prompt_slow_default', arguments: args }, { signal }),
        ],
        [
          '1.x, 2025-06-18',
          async (args, signal) =>
            (await connectV1(a, '2025-06-18')).callTool({ name: 'prompt_slow_default', arguments: args }, undefined, { signal }),
        ],
      ];
      for (const [revision, callTool] of callers) {
        const release = fake.hold(HELD_MODEL);
        try {
          const controller = new AbortController();
          const marker = `topic-${revision}-${Date.now()}`;
          const calling = callTool({ topic: marker }, controller.signal);
          await fake.waitForRequest((record) => record.model === HELD_MODEL && JSON.stringify(record.body).includes(marker), 10_000);
          controller.abort('the user clicked Stop');
          await expect(calling).rejects.toBeDefined();
          const record = await expectEventually(async () => {
            const listed = await call<{ requests: RequestListItem[] }>(a, 'GET', '/v1/private/requests?limit=20');
            const run = listed.body.requests.find((request) => request.message === `Cancel me about ${marker}`);
            expect({ revision, status: run?.status }).toEqual({ revision, status: 'cancelled' });
            return run as RequestListItem;
          });
          expect(record).toMatchObject({ surface: 'mcp', request_type: 'prompt' });
        } finally {
          release();
        }
      }
    });
  });

  /**
   * `publish` on prompt and workflow variants (the apply file) and on agents: names unique per
   * service (422 naming the field, nothing written), the first kept in the list across services,
   * and no change to what the native routes answer for prompts and workflows.
   */
  describe('publishing', () => {
    const prompt = (variants: Array<Record<string, unknown>>, deployment = 'notes') => ({
      prompts: [
        {
          deployment,
          variants: variants.map((variant) => ({ model: PROMPT_MODEL, messages: [{ role: 'user', content: '{{ text }}' }], ...variant })),
        },
      ],
    });
    const workflow = (publish: Record<string, unknown> | undefined, deployment = 'flow') => ({
      workflows: [
        {
          deployment,
          variants: [
            { name: 'default', output: 'done', steps: [{ id: 'only', type: 'template', text: 'done' }], ...(publish && { publish }) },
          ],
        },
      ],
    });
    const toolNames = async (who: Workspace) => (await (await connect(who, 'auto')).listTools()).tools.map((tool) => tool.name);
    const refusedField = (answer: { status: number; body: unknown }) => {
      expect(answer.status).toBe(422);
      const body = answer.body as { error_code: string; details: Array<{ field: string; messages: string[] }> };
      expect(body.error_code).toBe('validation_error');
      return body.details[0].field;
    };

    it('publishes and unpublishes a prompt variant without a new version or any change to the deployment routes’ answers', async () => {
      const c = await workspace('e2e mcp publishing');
      const first = await call<{ prompts: Array<{ variants: unknown[] }> }>(
        c,
        'POST',
        '/v1/private/prompts/apply',
        prompt([{ name: 'default' }]),
      );
      expect(first.body.prompts[0].variants).toEqual([expect.objectContaining({ name: 'default', version: 1, changed: true })]);
      const listedBefore = await call(c, 'GET', '/v1/private/prompts');
      const published = await call<{ prompts: Array<{ variants: unknown[] }> }>(
        c,
        'POST',
        '/v1/private/prompts/apply',
        prompt([{ name: 'default', publish: { mcp: true } }]),
      );
      expect(published.body.prompts[0].variants).toEqual([expect.objectContaining({ name: 'default', version: 1, changed: false })]);
      expect(await call(c, 'GET', '/v1/private/prompts')).toEqual(listedBefore);
      const versions = await call<{ versions: Array<Record<string, unknown>> }>(
        c,
        'GET',
        '/v1/private/prompts/notes/variants/default/versions',
      );
      expect(versions.body.versions).toHaveLength(1);
      expect(versions.body.versions[0]).not.toHaveProperty('publish');
      expect(await toolNames(c)).toEqual(['prompt_notes_default']);
      // A workflow likewise: its stored definition never holds publish.
      const flow = await call<{ workflows: Array<{ variants: unknown[] }> }>(
        c,
        'POST',
        '/v1/private/workflows/apply',
        workflow({ mcp: true }),
      );
      expect(flow.body.workflows[0].variants).toEqual([expect.objectContaining({ version: 1, changed: true })]);
      const again = await call<{ workflows: Array<{ variants: unknown[] }> }>(
        c,
        'POST',
        '/v1/private/workflows/apply',
        workflow(undefined),
      );
      expect(again.body.workflows[0].variants).toEqual([expect.objectContaining({ version: 1, changed: false })]);
      const definition = await call<{ versions: Array<{ definition: Record<string, unknown> }> }>(
        c,
        'GET',
        '/v1/private/workflows/flow/variants/default/versions',
      );
      expect(definition.body.versions[0].definition).not.toHaveProperty('publish');
      // Applied again without publish: no longer a tool.
      await call(c, 'POST', '/v1/private/prompts/apply', prompt([{ name: 'default' }]));
      expect(await toolNames(c)).toEqual([]);
    });

    it('refuses a tool name two prompt or workflow variants would share (422 naming the field), writing nothing', async () => {
      const c = await workspace('e2e mcp names');
      const twice = await call(
        c,
        'POST',
        '/v1/private/prompts/apply',
        prompt([
          { name: 'one', publish: { mcp: true, tool_name: 'shared' } },
          { name: 'two', publish: { mcp: true, tool_name: 'shared' } },
        ]),
      );
      expect(refusedField(twice)).toBe('prompts[0].variants[1].publish.tool_name');
      expect((twice.body as { message: string }).message).toBe(
        'The MCP tool name shared is already taken in this workspace: give this one another publish.tool_name',
      );
      expect((await call<{ prompts: unknown[] }>(c, 'GET', '/v1/private/prompts')).body.prompts).toEqual([]);
      // A workflow's name is taken for prompts, and a prompt's for workflows.
      expect((await call(c, 'POST', '/v1/private/workflows/apply', workflow({ mcp: true, tool_name: 'shared' }))).status).toBe(200);
      expect(
        refusedField(
          await call(c, 'POST', '/v1/private/prompts/apply', prompt([{ name: 'one', publish: { mcp: true, tool_name: 'shared' } }])),
        ),
      ).toBe('prompts[0].variants[0].publish.tool_name');
      expect(
        (await call(c, 'POST', '/v1/private/prompts/apply', prompt([{ name: 'one', publish: { mcp: true, tool_name: 'mine' } }]))).status,
      ).toBe(200);
      expect(refusedField(await call(c, 'POST', '/v1/private/workflows/apply', workflow({ mcp: true, tool_name: 'mine' }, 'other')))).toBe(
        'workflows[0].variants[0].publish.tool_name',
      );
      // A variant re-applied under its own name is no clash.
      expect(
        (await call(c, 'POST', '/v1/private/workflows/apply', workflow({ mcp: true, tool_name: 'shared', description: 'Again' }))).status,
      ).toBe(200);
      // A tool name outside ^[a-z0-9_]{1,40}$ is refused by either file.
      expect(
        (await call(c, 'POST', '/v1/private/prompts/apply', prompt([{ name: 'one', publish: { mcp: true, tool_name: 'Bad-Name' } }])))
          .status,
      ).toBe(422);
      expect(refusedField(await call(c, 'POST', '/v1/private/workflows/apply', workflow({ mcp: true, tool_name: 'x'.repeat(41) })))).toBe(
        'workflows[0].variants[0].publish.tool_name',
      );
      expect(await toolNames(c)).toEqual(['mine', 'shared']);
    });

    it('keeps agent tool names unique (422 naming agent.publish.tool_name, a rename too), answers publish on every agent record', async () => {
      const c = await workspace('e2e mcp agents');
      const agents = `/v1/public/workspaces/${c.id}/agents`;
      const bot = await call<{ agent: AgentRecord }>(c, 'POST', agents, {
        agent: { name: 'Help Bot', llm_model: AGENT_MODEL, model_type: 'llm', publish: { mcp: true } },
      });
      expect(bot.body.agent.publish).toEqual({ mcp: true });
      const plain = await call<{ agent: AgentRecord }>(c, 'POST', agents, {
        agent: { name: 'Plain', llm_model: AGENT_MODEL, model_type: 'llm' },
      });
      expect(plain.body.agent.publish).toBeNull();
      expect(
        refusedField(
          await call(c, 'POST', agents, {
            agent: { name: 'Other', llm_model: AGENT_MODEL, model_type: 'llm', publish: { mcp: true, tool_name: 'agent_help_bot' } },
          }),
        ),
      ).toBe('agent.publish.tool_name');
      const published = await call<{ agent: AgentRecord }>(c, 'PATCH', `${agents}/${plain.body.agent.id}`, {
        agent: { publish: { mcp: true } },
      });
      expect(published.body.agent.publish).toEqual({ mcp: true });
      // Renamed to Help Bot, its default tool name would be the other's.
      expect(refusedField(await call(c, 'PATCH', `${agents}/${plain.body.agent.id}`, { agent: { name: 'Help-Bot' } }))).toBe(
        'agent.publish.tool_name',
      );
      expect((await call<{ agents: AgentRecord[] }>(c, 'GET', agents)).body.agents.map((agent) => agent.publish)).toEqual([
        { mcp: true },
        { mcp: true },
      ]);
      expect(await toolNames(c)).toEqual(['agent_help_bot', 'agent_plain']);
      const unpublished = await call<{ agent: AgentRecord }>(c, 'PATCH', `${agents}/${plain.body.agent.id}`, { agent: { publish: null } });
      expect(unpublished.body.agent.publish).toBeNull();
      expect(await toolNames(c)).toEqual(['agent_help_bot']);
    });

    it('serves the first of two services’ tools that share a name, in the list order, and calls it', async () => {
      const c = await workspace('e2e mcp clash');
      await call(c, 'POST', `/v1/public/workspaces/${c.id}/agents`, {
        agent: { name: 'Echo', llm_model: AGENT_MODEL, model_type: 'llm', publish: { mcp: true } },
      });
      expect(
        (await call(c, 'POST', '/v1/private/prompts/apply', prompt([{ name: 'default', publish: { mcp: true, tool_name: 'agent_echo' } }])))
          .status,
      ).toBe(200);
      const client = await connect(c, 'auto');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['agent_echo']);
      expect(tools[0].inputSchema).toMatchObject({ required: ['text'] });
      fake.setModel(PROMPT_MODEL, { response: 'the prompt answered' });
      expect(textOf(await client.callTool({ name: 'agent_echo', arguments: { text: 'hi' } }))).toBe('the prompt answered');
    });
  });

  describe('the meter', () => {
    it('counts each tool call on the daily meter, not the list; a call over the cap is an isError result with its code', async () => {
      const capped = await workspace('e2e mcp capped');
      await applyDefinitions(DEFINITIONS, capped.id);
      await cliJson(['workspace', 'set-limits', capped.id, '--rate-limit-per-day', '2']);
      fake.setModel(PROMPT_MODEL, { response: 'ok' });
      const client = await connect(capped, 'auto');
      for (let list = 0; list < 3; list += 1) await client.listTools();
      const args = { product: 'Waggle', question: 'Counted?' };
      expect((await client.callTool({ name: 'prompt_helpdesk_default', arguments: args })).isError).toBeFalsy();
      expect((await client.callTool({ name: 'prompt_helpdesk_default', arguments: args })).isError).toBeFalsy();
      const over = await client.callTool({ name: 'prompt_helpdesk_default', arguments: args });
      expect(over.isError).toBe(true);
      expect(JSON.parse(textOf(over))).toMatchObject({ error_code: 'api_rate_limit_exceeded', request_id: requestIdOf(over) });
      // The native routes share the count: the cap is reached.
      expect((await call(capped, 'GET', '/v1/public/models')).status).toBe(429);
    });
  });

  describe('the edge', () => {
    it('answers a wrong or missing key 401 with the Bearer challenge and no OAuth hints; the SDK client fails with its typed 401 error', async () => {
      for (const authorization of [undefined, 'Bearer wgl_not_a_key', `Bearer ${a.key}x`]) {
        const response = await post(LIST, authorization ? { authorization } : {});
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="waggle"');
        const body = (await response.json()) as { jsonrpc: string; error: { code: number; message: string; data: { error_code: string } } };
        expect(body).toMatchObject({
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32_000, data: { error_code: expect.stringMatching(/^(unauthorized|invalid_api_key)$/) } },
        });
      }
      const from = sent.length;
      const anonymous = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      const failed = await anonymous
        .connect(new StreamableHTTPClientTransport(endpoint, { fetch: recordingFetch }))
        .catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(SdkHttpError);
      expect(failed).toMatchObject({ code: SdkErrorCode.ClientHttpAuthentication });
      expect(sent.slice(from).map((request) => new URL(request.url).pathname)).toEqual(['/v1/mcp']);
      for (const path of [
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/v1/mcp',
        '/.well-known/oauth-authorization-server',
      ]) {
        expect((await fetch(`${gateway}${path}`)).status).toBe(404);
      }
    });

    it('refuses an Origin that is not allowed (403) and serves an allowed one with CORS', async () => {
      const refused = await post(LIST, { authorization: `Bearer ${a.key}`, origin: 'https://evil.example.com' });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({
        jsonrpc: '2.0',
        error: {
          code: -32_000,
          data: { error_code: 'forbidden', message: 'The origin https://evil.example.com may not call this MCP server' },
        },
      });
      const allowed = await post(LIST, { authorization: `Bearer ${a.key}`, origin: ALLOWED_ORIGIN });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
      const preflight = await fetch(endpoint, {
        method: 'OPTIONS',
        headers: {
          origin: ALLOWED_ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    });

    it('answers GET and DELETE 405 with Allow: POST', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(endpoint, { method, headers: { authorization: `Bearer ${a.key}`, accept: 'text/event-stream' } });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
        expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { error_code: 'invalid_request' } }, id: null });
      }
    });

    it('answers a body over 1 MiB 413 with a JSON-RPC error, and malformed JSON as a parse error', async () => {
      const large = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { pad: 'x'.repeat(1024 * 1024) } } });
      const tooLarge = await post(large, { authorization: `Bearer ${a.key}` });
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32_600, data: { error_code: 'validation_error' } },
        id: null,
      });
      const malformed = await post('{"jsonrpc":', { authorization: `Bearer ${a.key}` });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32_700 }, id: null });
    });
  });

  /** One knowledge base of `who` (made once). */
  async function knowledgeBaseOf(who: Workspace): Promise<string> {
    const listed = await call<{ knowledge_bases: KnowledgeBaseRecord[] }>(who, 'GET', `/v1/public/workspaces/${who.id}/knowledge_bases`);
    if (listed.body.knowledge_bases.length > 0) return listed.body.knowledge_bases[0].id;
    const created = await call<{ knowledge_base: KnowledgeBaseRecord }>(who, 'POST', `/v1/public/workspaces/${who.id}/knowledge_bases`, {
      knowledge_base: { name: 'B only' },
    });
    return created.body.knowledge_base.id;
  }
});
