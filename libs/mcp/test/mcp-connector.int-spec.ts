import { createServer, type Server } from 'node:http';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport as ServerTransportV1 } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { FAKE_MCP_HUGE_BYTES, FakeMcpServer, FakeSearchServer } from '@waggle/fake-provider';
import { createTestCertificates, freePort, type TestCertificates } from '@waggle/testing';
import {
  MAX_MCP_TOOL_RESULT_BYTES,
  McpConnectionError,
  McpConnector,
  toolSnapshotHash,
  type McpConnectorOptions,
  type McpServerConnection,
} from '../src';

async function failureOf(promise: Promise<unknown>): Promise<McpConnectionError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpConnectionError) return error;
    throw error;
  }
  throw new Error('expected the MCP operation to fail');
}

function serverAt(url: string, headers: Record<string, string> = {}, timeoutMs = 5_000): McpServerConnection {
  return { id: 'fake', url, headers, timeoutMs };
}

describe('McpConnector against the fake MCP server', () => {
  let certificates: TestCertificates;
  let fake: FakeMcpServer;
  const connectors: McpConnector[] = [];
  const extraServers: Array<{ stop(): Promise<void> }> = [];

  /** 127.0.0.1 allowlisted (http allowed there), as the e2e stack sets MCP_URL_ALLOWLIST. */
  const connector = (options: Partial<McpConnectorOptions> = {}) => {
    const created = new McpConnector({ allowlist: '127.0.0.1', ca: certificates.caCert, ...options });
    connectors.push(created);
    return created;
  };

  const startFake = async (...args: ConstructorParameters<typeof FakeMcpServer>) => {
    const started = new FakeMcpServer(...args);
    await started.start();
    extraServers.push(started);
    return started;
  };

  beforeAll(async () => {
    certificates = await createTestCertificates();
    fake = new FakeMcpServer();
    await fake.start();
  });

  afterEach(async () => {
    await Promise.all(connectors.splice(0).map((created) => created.close()));
    await Promise.all(extraServers.splice(0).map((server) => server.stop()));
    fake.resetTools();
    fake.override(null);
    fake.clearRequests();
  });

  afterAll(() => fake.stop());

  describe('test and list', () => {
    it('lists the tools over the 2026-07-28 revision and names it', async () => {
      const result = await connector().test(serverAt(fake.url));

      expect(result.protocolVersion).toBe('2026-07-28');
      expect(result.tools.map((tool) => tool.name)).toEqual(['echo', 'add', 'slow', 'huge', 'fail']);
      expect(result.tools[1]).toEqual({
        name: 'add',
        description: 'Adds two numbers.',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      });
      expect(result.tools[0]).toMatchObject({ name: 'echo', title: 'Echo' });
      expect(fake.requests.flatMap((request) => request.rpcMethods)).toContain('server/discover');
    });

    it('falls back to the 2025 handshake against a server from before 2026-07-28', async () => {
      const legacy = await startFake({ era: 'legacy' });

      const result = await connector().test(serverAt(legacy.url));

      expect(result.protocolVersion).toMatch(/^2025-/);
      expect(result.tools.map((tool) => tool.name)).toContain('echo');
      expect(legacy.requests.flatMap((request) => request.rpcMethods)).toContain('initialize');
      const call = await connector().callTool(serverAt(legacy.url), 'echo', { text: 'old times' });
      expect(call).toEqual({ isError: false, text: 'old times', structuredContent: { text: 'old times' }, truncated: false });
      expect(legacy.calls).toEqual([expect.objectContaining({ tool: 'echo', era: 'legacy' })]);
    });

    it("falls back against the v1 SDK's own stateless server (the 2025 era as deployed servers speak it)", async () => {
      const http: Server = createServer((request, response) => {
        const server = new ServerV1({ name: 'v1-server', version: '1.0.0' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, async () => ({
          tools: [{ name: 'shout', description: 'Shouts.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
        }));
        server.setRequestHandler(CallToolRequestSchema, async (call) => ({
          content: [{ type: 'text', text: String(call.params.arguments?.text ?? '').toUpperCase() }],
        }));
        const transport = new ServerTransportV1({ sessionIdGenerator: undefined });
        response.on('close', () => void server.close());
        void server.connect(transport).then(() => transport.handleRequest(request, response));
      });
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      extraServers.push({
        stop: () => new Promise<void>((resolve) => (http.closeAllConnections(), http.close(() => resolve()))),
      });
      const address = http.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;

      const result = await connector().test(serverAt(url));
      expect(result.protocolVersion).toMatch(/^2025-/);
      expect(result.tools).toEqual([
        { name: 'shout', description: 'Shouts.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
      ]);
      expect(await connector().callTool(serverAt(url), 'shout', { text: 'quiet' })).toEqual({
        isError: false,
        text: 'QUIET',
        truncated: false,
      });
    });

    it('sends the configured headers and nothing of its own', async () => {
      const guarded = await startFake({ requiredHeaders: { authorization: 'Bearer s3cret-token', 'x-tenant': 'acme' } });

      await connector().listTools(serverAt(guarded.url, { Authorization: 'Bearer s3cret-token', 'X-Tenant': 'acme' }));

      const headers = guarded.requests.filter((request) => request.method === 'POST').map((request) => request.headers);
      expect(headers.length).toBeGreaterThan(0);
      for (const seen of headers) {
        expect(seen.authorization).toBe('Bearer s3cret-token');
        expect(seen['x-tenant']).toBe('acme');
        const names = Object.keys(seen).filter(
          (name) =>
            ![
              'authorization',
              'x-tenant',
              'host',
              'connection',
              'content-type',
              'content-length',
              'accept',
              'accept-encoding',
              'accept-language',
              'sec-fetch-mode',
              'user-agent',
            ].includes(name) && !name.startsWith('mcp-'),
        );
        expect(names).toEqual([]);
        expect(Object.keys(seen).some((name) => name.startsWith('x-waggle') || name === 'traceparent')).toBe(false);
      }
    });

    it('answers a changed tool list after setTool and removeTool, with a different snapshot hash', async () => {
      const before = await connector().listTools(serverAt(fake.url));
      fake.setTool({
        name: 'echo',
        description: 'Echoes, now louder.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      });
      fake.removeTool('fail');
      const after = await connector().listTools(serverAt(fake.url));

      expect(after.map((tool) => tool.name)).toEqual(['echo', 'add', 'slow', 'huge']);
      expect(after[0].description).toBe('Echoes, now louder.');
      expect(toolSnapshotHash(after)).not.toBe(toolSnapshotHash(before));
    });

    it('refuses a server that lists more than 100 tools (stage protocol)', async () => {
      const crowded = await startFake({
        tools: Array.from({ length: 101 }, (_, index) => ({ name: `tool_${index}`, inputSchema: { type: 'object' } })),
      });
      const error = await failureOf(connector().listTools(serverAt(crowded.url)));
      expect(error).toMatchObject({ stage: 'protocol', message: expect.stringContaining('101 tools, more than the 100 allowed') });
    });

    it('speaks TLS to a server whose certificate the given CA signed', async () => {
      const secure = await startFake({ tls: { key: certificates.key, cert: certificates.cert } });
      const result = await connector().test(serverAt(secure.url));
      expect(result.tools).toHaveLength(5);
    });
  });

  describe('stages of a failed test', () => {
    it('url_invalid: not a URL, another scheme, credentials in it, http to a host not allowlisted', async () => {
      const strict = connector({ allowlist: '' });
      for (const url of ['not a url', 'ftp://example.com/mcp', 'https://user:pw@example.com/mcp', 'http://example.com/mcp']) {
        const error = await failureOf(strict.test(serverAt(url)));
        expect(error.stage).toBe('url_invalid');
      }
    });

    it('address_refused without any connection: a literal metadata, private or loopback address', async () => {
      const strict = connector({ allowlist: '' });
      const metadata = await failureOf(strict.test(serverAt('https://169.254.169.254/mcp')));
      expect(metadata).toMatchObject({ stage: 'address_refused', message: 'url points to a link-local address' });
      const privateAddress = await failureOf(strict.test(serverAt('https://10.0.0.1/mcp')));
      expect(privateAddress).toMatchObject({ stage: 'address_refused', message: 'url points to a private address' });
      const loopback = await failureOf(strict.test(serverAt(fake.url.replace('http://', 'https://'))));
      expect(loopback.stage).toBe('address_refused');
      expect(fake.requests).toEqual([]);
    });

    it('address_refused: a host name that resolves to loopback when the allowlist lacks it (checked again at connect)', async () => {
      const secure = await startFake({ tls: { key: certificates.key, cert: certificates.cert } });
      const named = secure.url.replace('127.0.0.1', 'localhost');
      const error = await failureOf(connector({ allowlist: '' }).test(serverAt(named)));
      expect(error.stage).toBe('address_refused');
      expect(error.message).toMatch(/host resolves to a loopback address/);
      const listing = await failureOf(connector({ allowlist: '' }).listTools(serverAt(named)));
      expect(listing.stage).toBe('address_refused');
      expect(secure.requests).toEqual([]);
    });

    it('dns: a name that does not resolve', async () => {
      const error = await failureOf(connector().test(serverAt('https://nonexistent.invalid/mcp')));
      expect(error).toMatchObject({
        stage: 'dns',
        message: 'the MCP server at https://nonexistent.invalid: the host name could not be resolved',
      });
    });

    it('address_refused: nothing listens on the port (a closed port refuses the connection)', async () => {
      const port = await freePort();
      const error = await failureOf(connector().test(serverAt(`http://127.0.0.1:${port}/mcp`)));
      expect(error).toMatchObject({
        stage: 'address_refused',
        message: expect.stringContaining('nothing accepted the connection (ECONNREFUSED)'),
      });
    });

    it('tls: a certificate no trusted authority signed', async () => {
      const secure = await startFake({ tls: { key: certificates.key, cert: certificates.cert } });
      const error = await failureOf(connector({ ca: undefined }).test(serverAt(secure.url)));
      expect(error.stage).toBe('tls');
      expect(secure.requests).toEqual([]);
    });

    it('unauthorized: the fake requires a bearer and gets a wrong one (status 401), or none', async () => {
      const guarded = await startFake({ requiredHeaders: { authorization: 'Bearer right-one' } });
      const wrong = await failureOf(connector().test(serverAt(guarded.url, { Authorization: 'Bearer wrong-one' })));
      expect(wrong).toMatchObject({ stage: 'unauthorized', status: 401 });
      expect(wrong.message).not.toContain('wrong-one');
      const none = await failureOf(connector().test(serverAt(guarded.url)));
      expect(none).toMatchObject({ stage: 'unauthorized', status: 401 });
    });

    it('unauthorized: a 403', async () => {
      fake.override({ status: 403, contentType: 'application/json', body: '{"error":"forbidden"}' });
      const error = await failureOf(connector().test(serverAt(fake.url)));
      expect(error).toMatchObject({ stage: 'unauthorized', status: 403 });
    });

    it('http_status: a 500, with its status and without its body', async () => {
      fake.override({ status: 500, contentType: 'text/plain', body: 'internal detail that must not leak' });
      const error = await failureOf(connector().test(serverAt(fake.url)));
      expect(error).toMatchObject({ stage: 'http_status', status: 500 });
      expect(error.message).not.toContain('internal detail');
    });

    it('http_status: a redirect is not followed, not even within the origin', async () => {
      fake.override({ status: 307, headers: { location: '/elsewhere' } });
      const error = await failureOf(connector().test(serverAt(fake.url)));
      expect(error).toMatchObject({ stage: 'http_status', status: 307 });
      expect(fake.requests.every((request) => request.path === '/mcp')).toBe(true);
    });

    it('protocol: an HTTP server answering 200 with an HTML page', async () => {
      fake.override({ status: 200, contentType: 'text/html; charset=utf-8', body: '<!doctype html><title>Welcome</title><p>Hello</p>' });
      const error = await failureOf(connector().test(serverAt(fake.url)));
      expect(error).toMatchObject({ stage: 'protocol', message: expect.stringContaining('not MCP') });
      expect(error.message).not.toContain('Welcome');
    });

    it('http_status: a web server that is no MCP server at all (the fake search server answers a POST 404)', async () => {
      const search = new FakeSearchServer();
      await search.start();
      extraServers.push(search);
      const error = await failureOf(connector().test(serverAt(search.pageUrl('mcp', 1))));
      expect(error).toMatchObject({ stage: 'http_status', status: 404 });
    });

    it('protocol: a JSON body that is not JSON-RPC', async () => {
      fake.override({ status: 200, contentType: 'application/json', body: '{"hello":"world"}' });
      const error = await failureOf(connector().test(serverAt(fake.url)));
      expect(error.stage).toBe('protocol');
    });

    it('protocol: a JSON-RPC error on the listing, with its message and the header values masked', async () => {
      const failing = await startFake({
        tools: [{ name: 'x', inputSchema: { type: 'object' } }],
      });
      failing.failListing('listing broke for token tok-123456');
      const error = await failureOf(connector().test(serverAt(failing.url, { 'X-Key': 'tok-123456' })));
      expect(error.stage).toBe('protocol');
      expect(error.protocolError).toBe('listing broke for token ********');
    });

    it('timeout: the fake holds the listing past the budget (a small injected budget, the gate never released in time)', async () => {
      const gate = fake.gate('tools/list');
      const failure = failureOf(connector({ testTimeoutMs: 300 }).test(serverAt(fake.url)));
      await gate.reached;
      const error = await failure;
      gate.release();
      expect(error).toMatchObject({ stage: 'timeout', message: 'the MCP server at ' + fake.origin + ': no answer within 300 ms' });
    });
  });

  describe('calls', () => {
    it('calls a tool: text and structured content', async () => {
      const result = await connector().callTool(serverAt(fake.url), 'add', { a: 2, b: 3 });
      expect(result).toEqual({ isError: false, text: '{"sum":5}', structuredContent: { sum: 5 }, truncated: false });
      expect(fake.calls).toEqual([expect.objectContaining({ tool: 'add', arguments: { a: 2, b: 3 }, era: 'modern' })]);
    });

    it('answers a tool-level failure as a result with isError', async () => {
      const result = await connector().callTool(serverAt(fake.url), 'fail', {});
      expect(result).toEqual({ isError: true, text: 'the fake tool failed on purpose', truncated: false });
    });

    it('throws stage protocol for an unknown tool (a JSON-RPC error)', async () => {
      const error = await failureOf(connector().callTool(serverAt(fake.url), 'nope', {}));
      expect(error).toMatchObject({ stage: 'protocol', protocolError: expect.stringContaining('Unknown tool: nope') });
    });

    it('cuts a huge result to 100 KiB with a notice', async () => {
      const result = await connector().callTool(serverAt(fake.url), 'huge', {});
      expect(result.truncated).toBe(true);
      expect(result.isError).toBe(false);
      const [kept, notice] = result.text.split('\n\n[truncated: ');
      expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(MAX_MCP_TOOL_RESULT_BYTES);
      expect(Buffer.byteLength(kept)).toBeGreaterThan(MAX_MCP_TOOL_RESULT_BYTES - 4);
      expect(kept).not.toContain('\ufffd');
      expect(notice).toBe(`the tool's result was ${FAKE_MCP_HUGE_BYTES} bytes; only the first ${Buffer.byteLength(kept)} are shown]`);
    });

    it('passes progress on, and a cancel reaches the server (the handler sees its signal abort)', async () => {
      const gate = fake.gate('slow');
      const controller = new AbortController();
      const progress: Array<{ progress: number; message?: string }> = [];
      const call = connector().callTool(
        serverAt(fake.url),
        'slow',
        {},
        { signal: controller.signal, onProgress: (update) => progress.push(update) },
      );
      const outcome = call.then(
        () => 'answered',
        (error: unknown) => error,
      );
      await gate.reached;
      await gate.progress('halfway');
      controller.abort(new Error('the run was cancelled'));
      expect(await outcome).toEqual(new Error('the run was cancelled'));
      const cancelled = await fake.waitForCancellation('slow');
      expect(cancelled).toMatchObject({ tool: 'slow', era: 'modern', cancelled: true });
      gate.release();
    });

    it('sends notifications/cancelled to a 2025 server when the caller aborts', async () => {
      const legacy = await startFake({ era: 'legacy' });
      const gate = legacy.gate('slow');
      const controller = new AbortController();
      const outcome = connector()
        .callTool(serverAt(legacy.url), 'slow', {}, { signal: controller.signal })
        .then(
          () => 'answered',
          (error: unknown) => error,
        );
      await gate.reached;
      controller.abort(new Error('stop'));
      expect(await outcome).toEqual(new Error('stop'));
      await legacy.waitForRpc('notifications/cancelled');
      await legacy.waitForCancellation('slow');
      gate.release();
    });
  });

  describe('time-outs of a call, on the test clock', () => {
    afterEach(() => jest.useRealTimers());

    /** Only setTimeout is the test's: sockets, immediates and the clock the SDK reads stay real. */
    const useFakeTimeouts = () =>
      jest.useFakeTimers({
        doNotFake: [
          'Date',
          'hrtime',
          'nextTick',
          'performance',
          'queueMicrotask',
          'setImmediate',
          'clearImmediate',
          'setInterval',
          'clearInterval',
        ],
      });

    it('times out at timeout_ms without progress', async () => {
      const gate = fake.gate('slow');
      const run = connector();
      useFakeTimeouts();
      const outcome = failureOf(run.callTool(serverAt(fake.url, {}, 1_000), 'slow', {}));
      await gate.reached;
      await jest.advanceTimersByTimeAsync(1_000);
      const error = await outcome;
      jest.useRealTimers();
      gate.release();
      expect(error).toMatchObject({ stage: 'timeout', message: expect.stringContaining('did not answer in time') });
    });

    it('restarts the time-out on each progress notification', async () => {
      const gate = fake.gate('slow');
      const run = connector();
      const progress: number[] = [];
      useFakeTimeouts();
      const call = run.callTool(serverAt(fake.url, {}, 1_000), 'slow', {}, { onProgress: (update) => progress.push(update.progress) });
      await gate.reached;
      await waitFor(() => progress.length === 1);
      for (let step = 0; step < 3; step++) {
        await jest.advanceTimersByTimeAsync(900);
        await gate.progress(`step ${step}`);
        await waitFor(() => progress.length === step + 2);
      }
      await jest.advanceTimersByTimeAsync(900);
      gate.release();
      const result = await call;
      jest.useRealTimers();
      expect(result.text).toBe('slow done');
      expect(progress).toEqual([1, 2, 3, 4]);
    });
  });
});

/** Resolves once `condition` holds, checked on every turn of the event loop (immediates are real). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
