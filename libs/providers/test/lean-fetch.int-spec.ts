import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLeanFetch } from '../src/lean-fetch';

/** The providers' fetch against a real HTTP server, compared with what the global fetch gives. */
describe('createLeanFetch', () => {
  const leanFetch = createLeanFetch();
  let server: Server;
  let base: string;
  let hold: ServerResponse | undefined;
  const received: Array<{ method?: string; headers: IncomingMessage['headers']; body: string }> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ method: request.method, headers: request.headers, body });
        if (request.url === '/hold') {
          hold = response;
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.write('data: first\n\n');
          return;
        }
        response.writeHead(request.url === '/missing' ? 404 : 200, {
          'content-type': 'application/json',
          'x-request-id': 'abc',
          'set-cookie': ['a=1', 'b=2'],
        });
        response.end(JSON.stringify({ echo: body, path: request.url }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    hold?.destroy();
    server.closeAllConnections();
    server.close();
  });

  async function readAll(response: Response): Promise<string> {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    reader.releaseLock();
    return Buffer.concat(chunks).toString();
  }

  it('sends method, headers and a string body, and answers status, headers and body as fetch does', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: '{"q":1}' };
    const lean = await leanFetch(`${base}/v1/x`, init);
    const global = await fetch(`${base}/v1/x`, init);
    expect(lean.status).toBe(200);
    expect(lean.ok).toBe(true);
    expect(lean.headers.get('Content-Type')).toBe('application/json');
    expect(lean.headers.get('x-request-id')).toBe('abc');
    expect(Object.fromEntries([...lean.headers]).x_missing).toBeUndefined();
    expect(Object.fromEntries([...lean.headers])['content-type']).toBe(Object.fromEntries([...global.headers])['content-type']);
    expect(JSON.parse(await readAll(lean))).toEqual(JSON.parse(await readAll(global)));
    const [leanSeen, globalSeen] = received.slice(-2);
    expect(leanSeen.method).toBe('POST');
    expect(leanSeen.body).toBe('{"q":1}');
    expect(leanSeen.headers.authorization).toBe('Bearer k');
    expect(globalSeen.body).toBe(leanSeen.body);
  });

  it('answers a non-2xx status as a response, not a failure', async () => {
    const response = await leanFetch(`${base}/missing`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(response.ok).toBe(false);
    expect(await response.json()).toEqual({ echo: '{}', path: '/missing' });
  });

  it('fails a connection it cannot make as fetch does: TypeError "fetch failed" with the network error as cause', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const failure = await leanFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('ends a body under way when its signal aborts, rejecting with the signal reason', async () => {
    const controller = new AbortController();
    const response = await leanFetch(`${base}/hold`, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(Buffer.from((await reader.read()).value as Uint8Array).toString()).toBe('data: first\n\n');
    const reason = new Error('client went away');
    const pending = reader.read();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect(leanFetch(`${base}/v1/x`, { method: 'POST', body: '{}', signal: controller.signal })).rejects.toBe(reason);
  });

  it('hands a body that is not a string (a multipart form) to the global fetch', async () => {
    const form = new FormData();
    form.append('field', 'value');
    const response = await leanFetch(`${base}/form`, { method: 'POST', body: form });
    expect(response).toBeInstanceOf(Response);
    expect(((await response.json()) as { echo: string }).echo).toContain('value');
  });
});
