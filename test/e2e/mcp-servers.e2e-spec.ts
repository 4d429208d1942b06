import { randomBytes } from 'node:crypto';
import type { McpServerTestResult, McpServerView } from '@waggle/contracts';
import { FakeMcpServer } from '@waggle/fake-provider';
import { cliJson, expectEventually, freePort, OtlpReceiver, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';

const DEFAULT_TOOLS = ['echo', 'add', 'slow', 'huge', 'fail'];

/**
 * Workspace MCP servers (the spec's decisions, MCP) through the whole stack over HTTP, as a
 * client calls them: gateway, agent service (the registry, sealed headers, the connection test
 * through the SSRF guard with 127.0.0.1 allowed), against the fake MCP server, which requires a
 * bearer token unique to this run. That token must reach the fake and nothing else: no answer,
 * no log line of the gateway or the agent service, no exported span.
 */
describe('workspace MCP servers: /v1/private/mcp_servers', () => {
  const secret = `mcp-secret-${randomBytes(16).toString('hex')}`;
  const fake = new FakeMcpServer({ requiredHeaders: { authorization: `Bearer ${secret}` } });
  const html = new FakeMcpServer();
  const receiver = new OtlpReceiver();
  const apps: AppProcess[] = [];
  const answers: string[] = [];
  let gateway: AppProcess;
  let agent: AppProcess;
  let key: string;
  let otherKey: string;
  let cappedKey: string;

  const request = async (method: string, path: string, body?: unknown, apiKey = key) => {
    const response = await fetch(`${gateway.baseUrl}/v1/private/mcp_servers${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
  };
  const definition = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    name: `Server ${id}`,
    url: fake.url,
    headers: { Authorization: `Bearer ${secret}` },
    ...extra,
  });
  const failure = (stage: string, extra: Record<string, unknown> = {}) => ({
    error: expect.stringContaining(`The connection test to the MCP server failed (${stage})`),
    message: expect.stringContaining(`The connection test to the MCP server failed (${stage})`),
    error_code: 'mcp_connection_failed',
    code: 'mcp_connection_failed',
    details: { stage, reason: expect.any(String), ...extra },
  });

  beforeAll(async () => {
    await fake.start();
    await html.start();
    html.override({ status: 200, contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>Not MCP</title>' });
    const endpoint = await receiver.start();
    const env = { LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
    apps.push(spawnApp('catalog', await freePort(), env));
    agent = spawnApp('agent', await freePort(), { ...env, MCP_URL_ALLOWLIST: '127.0.0.1' });
    gateway = spawnApp('gateway', await freePort(), env);
    apps.push(agent, gateway);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    const workspace = async (name: string) =>
      (await cliJson<{ api_key: string }>(['workspace', 'create', '--name', name, '--plan', 'enterprise'])).api_key;
    [key, otherKey, cappedKey] = await Promise.all([workspace('e2e mcp'), workspace('e2e mcp other'), workspace('e2e mcp capped')]);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
    await html.stop();
    await receiver.stop();
  });

  afterEach(() => fake.resetTools());

  it('creates a server after testing it: headers masked, the listed tools approved; reads, lists by id, updates and deletes it', async () => {
    const created = await request('POST', '', definition('github', { timeout_ms: 30_000 }));
    expect(created.status).toBe(200);
    const server = created.body as unknown as McpServerView;
    expect(Object.keys(server)).toEqual([
      'id',
      'name',
      'url',
      'headers',
      'timeout_ms',
      'enabled',
      'tools',
      'tools_hash',
      'tools_approved_at',
      'created_at',
      'updated_at',
    ]);
    expect(server).toMatchObject({
      id: 'github',
      name: 'Server github',
      url: fake.url,
      headers: { Authorization: '********' },
      timeout_ms: 30_000,
      enabled: true,
      tools_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      tools_approved_at: expect.any(String),
    });
    expect(server.tools.map((tool) => tool.name)).toEqual(DEFAULT_TOOLS);
    expect(server.tools[1]).toEqual({
      name: 'add',
      description: 'Adds two numbers.',
      input_schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      output_schema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    });

    const disabled = await request('POST', '', definition('a-disabled', { enabled: false, headers: {} }));
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ enabled: false, tools: [], tools_hash: null, tools_approved_at: null, headers: {} });

    expect(await request('GET', '/github')).toEqual({ status: 200, body: server });
    const listed = await request('GET', '');
    expect(listed.status).toBe(200);
    expect((listed.body?.mcp_servers as McpServerView[]).map((item) => item.id)).toEqual(['a-disabled', 'github']);

    // Headers left out are kept: the update tests the server again with the stored bearer.
    fake.clearRequests();
    const renamed = await request('PATCH', '/github', { name: 'GitHub' });
    expect(renamed).toMatchObject({ status: 200, body: { id: 'github', name: 'GitHub', headers: { Authorization: '********' } } });
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(fake.requests.every((seen) => seen.headers.authorization === `Bearer ${secret}`)).toBe(true);
    // A record read back and sent again keeps the stored value behind the mask.
    const sentBack = await request('PATCH', '/github', { name: 'GitHub', headers: { Authorization: '********', 'X-Team': 'blue' } });
    expect(sentBack).toMatchObject({ status: 200, body: { headers: { Authorization: '********', 'X-Team': '********' } } });
    expect(fake.requests.at(-1)?.headers).toMatchObject({ authorization: `Bearer ${secret}`, 'x-team': 'blue' });
    expect(await request('PATCH', '/github', { id: 'renamed' })).toMatchObject({ status: 422, body: { error_code: 'validation_error' } });

    expect(await request('DELETE', '/github')).toEqual({ status: 200, body: { message: 'MCP server deleted successfully' } });
    const notFound = {
      error: 'MCP server not found',
      message: 'MCP server not found',
      error_code: 'resource_not_found',
      code: 'resource_not_found',
    };
    expect(await request('GET', '/github')).toEqual({ status: 404, body: notFound });
    expect(await request('DELETE', '/github')).toEqual({ status: 404, body: notFound });
    expect(await request('POST', '/github/test')).toEqual({ status: 404, body: notFound });
    expect(await request('GET', '/NOT-AN-ID')).toEqual({ status: 404, body: notFound });
    expect(await request('DELETE', '/a-disabled')).toMatchObject({ status: 200 });
  });

  it('refuses bad definitions with the catalog shape: id, name, url, headers, timeout', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [definition('Upper'), 'id'],
      [definition('x'.repeat(25)), 'id'],
      [definition('ok', { name: '' }), 'name'],
      [definition('ok', { url: 'http://example.com/mcp' }), 'url'],
      [definition('ok', { url: 'https://10.0.0.1/mcp' }), 'url'],
      [definition('ok', { headers: { Host: 'evil.example' } }), 'headers'],
      [definition('ok', { headers: { 'Mcp-Session-Id': 'x' } }), 'headers'],
      [definition('ok', { headers: { 'Transfer-Encoding': 'chunked' } }), 'headers'],
      [definition('ok', { headers: { 'X-Big': 'x'.repeat(8 * 1024 + 1) } }), 'headers'],
      [definition('ok', { headers: Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`X-H${index}`, 'v'])) }), 'headers'],
      [definition('ok', { timeout_ms: 999 }), 'timeout_ms'],
      [definition('ok', { timeout_ms: 300_001 }), 'timeout_ms'],
      [definition('ok', { surprise: true }), 'surprise'],
    ];
    for (const [body, field] of cases) {
      const answer = await request('POST', '', body);
      expect({ field, status: answer.status, code: answer.body?.error_code }).toEqual({ field, status: 422, code: 'validation_error' });
      expect(answer.body?.details).toEqual([expect.objectContaining({ field: expect.stringMatching(new RegExp(`^${field}`)) })]);
    }
    const missing = await request('POST', '', { id: 'ok', name: 'n' });
    expect(missing).toMatchObject({ status: 422, body: { error_code: 'missing_required_field', details: [{ field: 'url' }] } });
    const refused = await request('POST', '', definition('hosted', { headers: { Host: 'evil.example' } }));
    expect(refused.body?.details).toEqual([{ field: 'headers', messages: ['header Host is set from the URL'] }]);
    const notJson = await fetch(`${gateway.baseUrl}/v1/private/mcp_servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect(await request('GET', '')).toEqual({ status: 200, body: { mcp_servers: [] } });
  });

  it('holds at most 20 servers per workspace', async () => {
    for (let index = 0; index < 20; index++) {
      const created = await request('POST', '', definition(`s${index}`, { enabled: false }), cappedKey);
      expect(created.status).toBe(200);
    }
    const over = await request('POST', '', definition('s20', { enabled: false }), cappedKey);
    expect(over).toEqual({
      status: 422,
      body: {
        error: 'A workspace can have at most 20 MCP servers',
        message: 'A workspace can have at most 20 MCP servers',
        error_code: 'validation_error',
        code: 'validation_error',
        details: [{ field: 'id', messages: ['A workspace can have at most 20 MCP servers'] }],
      },
    });
    expect(((await request('GET', '', undefined, cappedKey)).body?.mcp_servers as unknown[]).length).toBe(20);
  });

  it('tests a saved server and an unsaved definition; a changed tool shows as changed until approved', async () => {
    expect((await request('POST', '', definition('docs'))).status).toBe(200);
    const saved = await request('POST', '/docs/test');
    expect(saved.status).toBe(200);
    const result = saved.body as unknown as McpServerTestResult;
    expect(result).toMatchObject({ ok: true, protocol_version: '2026-07-28', changed: [], removed: [] });
    expect(result.tools.map((tool) => tool.name)).toEqual(DEFAULT_TOOLS);

    const draft = await request('POST', '/test', definition('draft'));
    expect(draft).toMatchObject({ status: 200, body: { ok: true, changed: DEFAULT_TOOLS, removed: [] } });
    expect((await request('GET', '/draft')).status).toBe(404);

    fake.setTool({
      name: 'echo',
      description: 'Echoes, now in capitals.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    });
    fake.removeTool('fail');
    const changed = await request('POST', '/docs/test');
    expect(changed).toMatchObject({ status: 200, body: { changed: ['echo'], removed: ['fail'] } });
    const before = (await request('GET', '/docs')).body as unknown as McpServerView;

    const approved = await request('POST', '/docs/approve');
    expect(approved.status).toBe(200);
    const view = approved.body as unknown as McpServerView;
    expect(view.tools.map((tool) => tool.name)).toEqual(['echo', 'add', 'slow', 'huge']);
    expect(view.tools[0].description).toBe('Echoes, now in capitals.');
    expect(view.tools_hash).not.toBe(before.tools_hash);
    expect(await request('POST', '/docs/test')).toMatchObject({ status: 200, body: { changed: [], removed: [] } });
  });

  it('answers 422 mcp_connection_failed with the stage: unreachable, unauthorized, not MCP, private address; a failed create saves nothing', async () => {
    const closedPort = await freePort();
    const unreachable = await request('POST', '/test', definition('down', { url: `http://127.0.0.1:${closedPort}/mcp` }));
    expect(unreachable).toEqual({ status: 422, body: failure('address_refused') });
    const unresolvable = await request('POST', '/test', definition('nowhere', { url: 'https://nonexistent.invalid/mcp' }));
    expect(unresolvable).toEqual({ status: 422, body: failure('dns') });

    const wrong = await request('POST', '/test', definition('wrong', { headers: { Authorization: 'Bearer not-the-token' } }));
    expect(wrong).toEqual({ status: 422, body: failure('unauthorized', { status: 401 }) });

    const notMcp = await request('POST', '/test', definition('html', { url: html.url, headers: {} }));
    expect(notMcp).toEqual({ status: 422, body: failure('protocol') });

    for (const url of ['https://169.254.169.254/mcp', 'https://10.0.0.1/mcp']) {
      const privateAddress = await request('POST', '/test', definition('private', { url }));
      expect({ url, ...privateAddress }).toEqual({ url, status: 422, body: failure('address_refused') });
    }

    const createWrong = await request('POST', '', definition('wrong', { headers: { Authorization: 'Bearer not-the-token' } }));
    expect(createWrong).toEqual({ status: 422, body: failure('unauthorized', { status: 401 }) });
    expect((await request('GET', '/wrong')).status).toBe(404);
  });

  it("keeps one workspace's servers from another: listed, read, tested, approved, updated or deleted, all 404", async () => {
    expect((await request('POST', '', definition('private-one'))).status).toBe(200);
    expect(await request('GET', '', undefined, otherKey)).toEqual({ status: 200, body: { mcp_servers: [] } });
    for (const [method, path, body] of [
      ['GET', '/private-one', undefined],
      ['PATCH', '/private-one', { name: 'taken' }],
      ['POST', '/private-one/test', undefined],
      ['POST', '/private-one/approve', undefined],
      ['DELETE', '/private-one', undefined],
    ] as const) {
      const answer = await request(method, path, body, otherKey);
      expect({ method, path, status: answer.status, code: answer.body?.error_code }).toEqual({
        method,
        path,
        status: 404,
        code: 'resource_not_found',
      });
    }
    // The same id is free in the other workspace.
    expect((await request('POST', '', definition('private-one'), otherKey)).status).toBe(200);
    expect((await request('GET', '/private-one')).body).toMatchObject({ name: 'Server private-one' });
  });

  it('never shows the header secret: not in an answer, a log line of the gateway or the agent service, or an exported span; the fake saw it', async () => {
    expect(fake.requests.some((seen) => seen.headers.authorization === `Bearer ${secret}`)).toBe(true);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((answer) => answer.includes(secret))).toEqual([]);
    // Spans are exported in batches: wait until the agent's spans of this run have arrived.
    await expectEventually(() => expect(receiver.spans.some((span) => span.service === 'waggle-agent')).toBe(true), {
      timeoutMs: 10_000,
      intervalMs: 200,
    });
    expect(JSON.stringify(receiver.spans)).not.toContain(secret);
    expect(gateway.output()).not.toContain(secret);
    expect(agent.output()).not.toContain(secret);
    expect(agent.output()).toContain('mcp server created');
  });
});
