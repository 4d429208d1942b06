import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FAKE_MCP_HUGE_BYTES, FakeMcpServer } from '../src';

/** The official v2 client, negotiating the newest revision the server offers. */
async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'fake-mcp-spec', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe('fake MCP server, driven by the official SDK clients', () => {
  const fake = new FakeMcpServer();
  const clients: Array<{ close(): Promise<void> }> = [];
  const others: FakeMcpServer[] = [];

  beforeAll(() => fake.start());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(others.splice(0).map((server) => server.stop()));
    fake.resetTools();
    fake.clearRequests();
  });
  afterAll(() => fake.stop());

  const client = async (url = fake.url, headers: Record<string, string> = {}) => {
    const connected = await connect(url, headers);
    clients.push(connected);
    return connected;
  };

  it('serves the 2026-07-28 revision and lists the default tools', async () => {
    const connected = await client();
    expect(connected.getProtocolEra()).toBe('modern');
    const { tools } = await connected.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'add', 'slow', 'huge', 'fail']);
    expect(tools.find((tool) => tool.name === 'add')?.outputSchema).toEqual({
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    });
  });

  it('answers echo, add, fail and huge, and records every call', async () => {
    const connected = await client();
    expect(await connected.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: { text: 'hi' },
    });
    expect(await connected.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).toMatchObject({ structuredContent: { sum: 3 } });
    expect(await connected.callTool({ name: 'fail', arguments: {} })).toMatchObject({ isError: true });
    const huge = await connected.callTool({ name: 'huge', arguments: {} });
    const text = (huge.content as Array<{ text: string }>)[0].text;
    expect(Buffer.byteLength(text)).toBeGreaterThan(FAKE_MCP_HUGE_BYTES - 4);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(FAKE_MCP_HUGE_BYTES);
    expect(fake.calls.map((call) => [call.tool, call.era])).toEqual([
      ['echo', 'modern'],
      ['add', 'modern'],
      ['fail', 'modern'],
      ['huge', 'modern'],
    ]);
  });

  it('holds slow at its gate, sends progress on demand and answers once released', async () => {
    const connected = await client();
    const gate = fake.gate('slow');
    const progress: Array<{ progress: number; message?: string }> = [];
    const call = connected.callTool({ name: 'slow', arguments: {} }, { onprogress: (update) => progress.push(update) });
    expect(await fake.waitForCall('slow')).toMatchObject({ tool: 'slow', progressToken: expect.anything() });
    await gate.reached;
    await gate.progress('halfway');
    gate.release();
    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'slow done' }] });
    expect(progress).toEqual([
      { progress: 1, message: 'started' },
      { progress: 2, message: 'halfway' },
    ]);
  });

  it('sees a cancelled call: its handler signal aborts', async () => {
    const connected = await client();
    const gate = fake.gate('slow');
    const controller = new AbortController();
    const call = connected.callTool({ name: 'slow', arguments: {} }, { signal: controller.signal }).catch((error: unknown) => error);
    await gate.reached;
    controller.abort('stop');
    await call;
    expect(await fake.waitForCancellation('slow')).toMatchObject({ cancelled: true });
    gate.release();
  });

  it('changes its list at run time', async () => {
    fake.setTool({ name: 'lookup', description: 'Looks up.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } });
    fake.removeTool('huge');
    const connected = await client();
    const { tools } = await connected.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'add', 'slow', 'fail', 'lookup']);
    expect(await connected.callTool({ name: 'lookup', arguments: { q: 'x' } })).toMatchObject({
      content: [{ type: 'text', text: '{"q":"x"}' }],
    });
  });

  it('requires its configured headers (401 otherwise) and records what each request carried', async () => {
    const guarded = new FakeMcpServer({ requiredHeaders: { Authorization: 'Bearer s3cret' } });
    await guarded.start();
    others.push(guarded);

    const refused = await connect(guarded.url, { authorization: 'Bearer wrong' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SdkHttpError);
    expect((refused as SdkHttpError).status).toBe(401);
    expect(guarded.requests[0]).toMatchObject({ refusedWith: 401 });

    guarded.clearRequests();
    const connected = await client(guarded.url, { authorization: 'Bearer s3cret' });
    await connected.listTools();
    expect(guarded.requests.every((request) => request.headers.authorization === 'Bearer s3cret' && request.refusedWith === null)).toBe(
      true,
    );
  });

  it("in 2025-only mode: a v2 client falls back to initialize, and the v1 SDK's client connects", async () => {
    const legacy = new FakeMcpServer({ era: 'legacy' });
    await legacy.start();
    others.push(legacy);

    const modern = await client(legacy.url);
    expect(modern.getProtocolEra()).toBe('legacy');
    expect((await modern.listTools()).tools).toHaveLength(5);

    const v1 = new ClientV1({ name: 'v1-client', version: '1.0.0' });
    await v1.connect(new TransportV1(new URL(legacy.url)));
    clients.push(v1);
    expect(await v1.callTool({ name: 'echo', arguments: { text: 'from v1' } })).toMatchObject({
      content: [{ type: 'text', text: 'from v1' }],
    });
    expect(legacy.calls.at(-1)).toMatchObject({ tool: 'echo', era: 'legacy' });
  });

  it('answers every request with an override (a 500, an HTML page), then MCP again', async () => {
    fake.override({ status: 200, contentType: 'text/html', body: '<html></html>' });
    const page = await fetch(fake.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<html></html>');
    fake.override(null);
    await expect(client()).resolves.toBeDefined();
  });
});
