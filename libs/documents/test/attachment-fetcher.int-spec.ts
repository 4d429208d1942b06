import { TestHttpsServer } from '@waggle/testing';
import { AttachmentFetcher, AttachmentFetchError, type AttachmentFetcherOptions } from '../src';

async function failureOf(promise: Promise<unknown>): Promise<AttachmentFetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AttachmentFetchError) return error;
    throw error;
  }
  throw new Error('expected the fetch to fail');
}

describe('AttachmentFetcher against a local HTTPS server with a test CA', () => {
  let server: TestHttpsServer;
  const fetchers: AttachmentFetcher[] = [];

  /** Loopback allowlisted and the test CA trusted, as the tests of callbacks allowlist 127.0.0.1. */
  const fetcher = (options: AttachmentFetcherOptions = {}) => {
    const created = new AttachmentFetcher({ allowlist: '127.0.0.1', ca: server.caCert, ...options });
    fetchers.push(created);
    return created;
  };

  beforeAll(async () => {
    server = await TestHttpsServer.start();
  });

  afterEach(async () => {
    await Promise.all(fetchers.splice(0).map((created) => created.close()));
    server.reset();
  });

  afterAll(() => server.close());

  it('fetches a file over verified TLS from an allowlisted loopback address, and the server sees the request', async () => {
    const body = Buffer.from('%PDF-1.7 pretend');
    server.serve('/q3/report.pdf', body, 'application/pdf', { 'content-disposition': 'attachment; filename="Q3 report.pdf"' });
    const url = server.url('/q3/report.pdf?version=2');

    const fetched = await fetcher().fetch(url);

    expect(fetched).toEqual({ url, finalUrl: url, contentType: 'application/pdf', fileName: 'Q3 report.pdf', bytes: body, redirects: 0 });
    expect(server.requests).toEqual([
      expect.objectContaining({ method: 'GET', path: '/q3/report.pdf?version=2', outcome: 'completed', bytesSent: body.length }),
    ]);
    expect(server.requests[0].headers['accept-encoding']).toBe('identity');
  });

  it('refuses http:// before connecting', async () => {
    server.serve('/a.txt', 'text', 'text/plain');
    const url = server.url('/a.txt').replace('https://', 'http://');
    const error = await failureOf(fetcher().fetch(url));
    expect(error).toMatchObject({ code: 'refused', message: `could not fetch ${url}: the attachment URL does not use https` });
    expect(server.requests).toEqual([]);
  });

  it('refuses a loopback address that is not allowlisted: the connection is never made', async () => {
    server.serve('/a.txt', 'text', 'text/plain');
    const strict = fetcher({ allowlist: '' });

    const literal = await failureOf(strict.fetch(server.url('/a.txt')));
    expect(literal).toMatchObject({
      code: 'refused',
      message: `could not fetch ${server.url('/a.txt')}: attachment URL points to a loopback address (127.0.0.1)`,
    });
    const named = await failureOf(strict.fetch(server.url('/a.txt', 'localhost')));
    expect(named.code).toBe('refused');
    expect(named.message).toMatch(/: attachment host resolves to a loopback address \((127\.0\.0\.1|::1)\)$/);
    expect(server.requests).toEqual([]);
  });

  it('keeps certificate verification on: without the test CA the server is not trusted', async () => {
    server.serve('/a.txt', 'text', 'text/plain');
    const error = await failureOf(fetcher({ ca: undefined }).fetch(server.url('/a.txt')));
    expect(error.code).toBe('network');
    expect(error.message).toMatch(
      /: the server's TLS certificate was not accepted \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)$/,
    );
    expect(server.requests).toEqual([]);
  });

  it('follows up to 3 redirects', async () => {
    server.redirect('/one', '/two', 301).redirect('/two', server.url('/three'), 307).redirect('/three', '/final', 308);
    server.serve('/final', 'arrived', 'text/plain');
    const fetched = await fetcher().fetch(server.url('/one'));
    expect(fetched).toMatchObject({ url: server.url('/one'), finalUrl: server.url('/final'), redirects: 3 });
    expect(fetched.bytes.toString()).toBe('arrived');
    expect(server.requests.map((request) => request.path)).toEqual(['/one', '/two', '/three', '/final']);
  });

  it('refuses a fourth redirect without following it', async () => {
    server.redirect('/r1', '/r2').redirect('/r2', '/r3').redirect('/r3', '/r4').redirect('/r4', '/final');
    server.serve('/final', 'never read', 'text/plain');
    const error = await failureOf(fetcher().fetch(server.url('/r1')));
    expect(error).toMatchObject({ code: 'too_many_redirects', message: `could not fetch ${server.url('/r1')}: more than 3 redirects` });
    expect(server.requests.map((request) => request.path)).toEqual(['/r1', '/r2', '/r3', '/r4']);
  });

  it('refuses a redirect to http://, without naming where it led', async () => {
    server.redirect('/go', `http://127.0.0.1:${server.port}/plain?token=s3cr3t`);
    const error = await failureOf(fetcher().fetch(server.url('/go')));
    expect(error).toMatchObject({
      code: 'refused',
      message: `could not fetch ${server.url('/go')}: the redirect target does not use https`,
    });
    expect(error.message).not.toContain('s3cr3t');
    expect(server.requests.map((request) => request.path)).toEqual(['/go']);
  });

  it('refuses a redirect to a private address the guard does not allow: checked again when connecting', async () => {
    // Only the name is allowlisted; the redirect leads to the loopback address itself.
    server.redirect('/go', `${server.url('/internal')}?token=s3cr3t`);
    server.serve('/internal', 'internal data', 'text/plain');
    const url = server.url('/go', 'localhost');
    const error = await failureOf(fetcher({ allowlist: 'localhost' }).fetch(url));
    expect(error).toMatchObject({
      code: 'refused',
      message: `could not fetch ${url}: attachment URL points to a loopback address (127.0.0.1)`,
    });
    expect(error.message).not.toContain('s3cr3t');
    expect(server.requests.map((request) => request.path)).toEqual(['/go']);
  });

  it('accepts a body of exactly the cap', async () => {
    server.serve('/exact', Buffer.alloc(64 * 1024, 'x'), 'text/plain');
    const fetched = await fetcher({ maxBytes: 64 * 1024 }).fetch(server.url('/exact'));
    expect(fetched.bytes).toHaveLength(64 * 1024);
  });

  it('cuts off a streamed body past the cap instead of reading it all', async () => {
    const total = 16 * 1024 * 1024;
    server.stream('/big', total, { chunkBytes: 64 * 1024 });
    const error = await failureOf(fetcher({ maxBytes: 256 * 1024 }).fetch(server.url('/big')));
    expect(error).toMatchObject({ code: 'too_large', message: `could not fetch ${server.url('/big')}: the file is larger than 256 KiB` });
    const answer = await server.waitForAnswerEnd('/big');
    expect(answer.outcome).toBe('closed early');
    expect(answer.bytesSent).toBeLessThan(total);
  });

  it('refuses a declared length over the cap before reading the body', async () => {
    server.stream('/declared', 16 * 1024 * 1024, { declareLength: true });
    const error = await failureOf(fetcher({ maxBytes: 1000 }).fetch(server.url('/declared')));
    expect(error).toMatchObject({
      code: 'too_large',
      message: `could not fetch ${server.url('/declared')}: the file is larger than 1000 bytes`,
    });
    expect((await server.waitForAnswerEnd('/declared')).outcome).toBe('closed early');
  });

  it.each([
    ['a body that never finishes', { firstChunk: 'partial' }],
    ['an answer that never starts', { firstChunk: null }],
  ])('gives up on %s at the time cap and closes the connection', async (_what, hang) => {
    server.hang('/slow', hang);
    const error = await failureOf(fetcher({ timeoutMs: 300 }).fetch(server.url('/slow')));
    expect(error).toMatchObject({ code: 'timeout', message: `could not fetch ${server.url('/slow')}: no complete answer within 300 ms` });
    expect((await server.waitForAnswerEnd('/slow')).outcome).toBe('closed early');
  });

  it('stops when the caller aborts', async () => {
    server.hang('/slow');
    const controller = new AbortController();
    void server.waitForRequest('/slow').then(() => controller.abort());
    const error = await failureOf(fetcher().fetch(server.url('/slow'), { signal: controller.signal }));
    expect(error).toMatchObject({ code: 'aborted', message: `could not fetch ${server.url('/slow')}: the fetch was cancelled` });
    expect((await server.waitForAnswerEnd('/slow')).outcome).toBe('closed early');
  });

  it.each([404, 500])('answers a %i with its status', async (status) => {
    server.status('/missing', status);
    const error = await failureOf(fetcher().fetch(server.url('/missing')));
    expect(error).toMatchObject({
      code: 'http_status',
      status,
      message: `could not fetch ${server.url('/missing')}: the server answered ${status}`,
    });
  });

  it('answers a connection refused as a network error', async () => {
    const closed = await TestHttpsServer.start();
    const url = closed.url('/a.txt');
    await closed.close();
    const error = await failureOf(fetcher().fetch(url));
    expect(error).toMatchObject({ code: 'network', message: `could not fetch ${url}: the connection was refused` });
  });
});
