import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** The test certificate authority's certificate (PEM): what a client is told to trust. */
  caCert: string;
  /** A server certificate the CA issued for `localhost`, `127.0.0.1` and `::1`. */
  cert: string;
  key: string;
  /** A client certificate the same CA issued (clientAuth), for servers that verify their clients (mutual TLS). */
  clientCert: string;
  clientKey: string;
}

const ONE_DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A fresh certificate authority, a server certificate it signed for the loopback names and a client certificate, made
 * in memory for one test run (EC P-256, valid from an hour ago for a day). Nothing is trusted
 * system-wide: a client trusts the CA only when given `caCert` (the fetcher's `ca`, or
 * NODE_EXTRA_CA_CERTS for a spawned process), and verification stays on.
 */
export async function createTestCertificates(): Promise<TestCertificates> {
  // Loaded here rather than with @waggle/testing: most test files never make a certificate.
  const { generate } = await import('selfsigned');
  const notBeforeDate = new Date(Date.now() - 60 * 60 * 1000);
  const notAfterDate = new Date(Date.now() + ONE_DAY_MS);
  const ca = await generate([{ name: 'commonName', value: 'Waggle test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  type Extensions = NonNullable<Parameters<typeof generate>[1]>['extensions'];
  const issue = (commonName: string, extensions: Extensions) =>
    generate([{ name: 'commonName', value: commonName }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notBeforeDate,
      notAfterDate,
      ca: { key: ca.private, cert: ca.cert },
      extensions,
    });
  const server = await issue('localhost', [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
        { type: 7, ip: '::1' },
      ],
    },
  ]);
  const client = await issue('waggle-test-client', [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
  ]);
  return { caCert: ca.cert, cert: server.cert, key: server.private, clientCert: client.cert, clientKey: client.private };
}

/** What the server answers on one path. */
export type TestRoute =
  | { kind: 'file'; body: Buffer; contentType?: string; headers?: Record<string, string> }
  | { kind: 'redirect'; location: string; status: number }
  | { kind: 'status'; status: number }
  /** Headers and a first chunk (or, with `firstChunk: null`, not even headers), then nothing, ever: for time caps. */
  | { kind: 'hang'; contentType: string; firstChunk: Buffer | null }
  /** `totalBytes` of generated body sent chunk by chunk as the client reads: for size caps. */
  | { kind: 'stream'; totalBytes: number; chunkBytes: number; contentType: string; declareLength: boolean };

export interface TestHttpsRequest {
  method: string;
  /** Path and query, as requested. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Set once the answer ended: `completed` when it was sent whole, `closed early` when the client went away first. */
  outcome: 'pending' | 'completed' | 'closed early';
  /** Body bytes written before the answer ended. */
  bytesSent: number;
}

type RequestListener = (request: TestHttpsRequest) => void;

/**
 * A loopback HTTPS server for tests, with a certificate from a test CA made at start: serves
 * files from memory with chosen Content-Types, answers redirects, statuses, bodies that never end
 * and large streamed bodies, and records every request and how its answer ended, so a test can
 * wait on those events instead of on a clock.
 *
 *     const files = await TestHttpsServer.start();
 *     files.serve('/report.pdf', pdfBytes, 'application/pdf');
 *     const fetcher = new AttachmentFetcher({ allowlist: '127.0.0.1', ca: files.caCert });
 *     await fetcher.fetch(files.url('/report.pdf'));
 *
 * A separately started service trusts it through `NODE_EXTRA_CA_CERTS=${files.writeCaFile()}`.
 */
export class TestHttpsServer {
  readonly requests: TestHttpsRequest[] = [];
  private readonly routes = new Map<string, TestRoute>();
  private readonly listeners = new Set<RequestListener>();
  private readonly endListeners = new Set<RequestListener>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly caCert: string,
  ) {}

  static async start(): Promise<TestHttpsServer> {
    const certificates = await createTestCertificates();
    const server = createServer({ key: certificates.key, cert: certificates.cert });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const instance = new TestHttpsServer(server, (server.address() as AddressInfo).port, certificates.caCert);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => instance.handle(request, response));
    return instance;
  }

  /** `https://127.0.0.1:<port><path>` (or another loopback name the certificate covers: `localhost`, `[::1]`). */
  url(path: string, host: '127.0.0.1' | 'localhost' | '[::1]' = '127.0.0.1'): string {
    return `https://${host}:${this.port}${path}`;
  }

  /** Answers GET `path` with `body` and the given Content-Type (none when null). */
  serve(
    path: string,
    body: Buffer | string,
    contentType: string | null = 'application/octet-stream',
    headers: Record<string, string> = {},
  ): this {
    this.routes.set(path, {
      kind: 'file',
      body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
      ...(contentType === null ? {} : { contentType }),
      headers,
    });
    return this;
  }

  /** Answers `path` with a redirect to `location` (a path on this server or any URL). */
  redirect(path: string, location: string, status = 302): this {
    this.routes.set(path, { kind: 'redirect', location, status });
    return this;
  }

  /** Answers `path` with a bare status (e.g. 404, 500). */
  status(path: string, status: number): this {
    this.routes.set(path, { kind: 'status', status });
    return this;
  }

  /** Sends headers and a first chunk on `path`, then never finishes; with `firstChunk: null` it sends nothing at all. */
  hang(path: string, options: { contentType?: string; firstChunk?: Buffer | string | null } = {}): this {
    const firstChunk = options.firstChunk === undefined ? 'partial' : options.firstChunk;
    this.routes.set(path, {
      kind: 'hang',
      contentType: options.contentType ?? 'text/plain',
      firstChunk: firstChunk === null ? null : Buffer.from(firstChunk),
    });
    return this;
  }

  /** Streams `totalBytes` of text on `path`, as fast as the client reads; `declareLength` sends a Content-Length. */
  stream(path: string, totalBytes: number, options: { chunkBytes?: number; contentType?: string; declareLength?: boolean } = {}): this {
    this.routes.set(path, {
      kind: 'stream',
      totalBytes,
      chunkBytes: options.chunkBytes ?? 64 * 1024,
      contentType: options.contentType ?? 'text/plain',
      declareLength: options.declareLength ?? false,
    });
    return this;
  }

  requestsTo(path: string): TestHttpsRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Resolves with the first request to `path` (one already received, or the next). */
  waitForRequest(path: string): Promise<TestHttpsRequest> {
    return this.waitFor(this.listeners, (request) => request.path === path);
  }

  /** Resolves once the answer to a request on `path` has ended, however it ended. */
  waitForAnswerEnd(path: string): Promise<TestHttpsRequest> {
    return this.waitFor(this.endListeners, (request) => request.path === path && request.outcome !== 'pending');
  }

  /** Writes the CA certificate to a new temporary file and returns its path (for NODE_EXTRA_CA_CERTS). */
  writeCaFile(directory = mkdtempSync(join(tmpdir(), 'waggle-test-ca-'))): string {
    const path = join(directory, 'test-ca.pem');
    writeFileSync(path, this.caCert);
    return path;
  }

  /** Forgets routes and recorded requests. */
  reset(): void {
    this.routes.clear();
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private waitFor(listeners: Set<RequestListener>, matches: (request: TestHttpsRequest) => boolean): Promise<TestHttpsRequest> {
    const seen = this.requests.find(matches);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const listener: RequestListener = (request) => {
        if (!matches(request)) return;
        listeners.delete(listener);
        resolve(request);
      };
      listeners.add(listener);
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const record: TestHttpsRequest = {
      method: request.method ?? '',
      path: request.url ?? '/',
      headers: request.headers,
      outcome: 'pending',
      bytesSent: 0,
    };
    this.requests.push(record);
    response.on('close', () => {
      record.outcome = response.writableFinished ? 'completed' : 'closed early';
      for (const listener of [...this.endListeners]) listener(record);
    });
    for (const listener of [...this.listeners]) listener(record);

    const route = this.routes.get(new URL(record.path, 'https://localhost').pathname);
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    switch (route.kind) {
      case 'file':
        response.writeHead(200, {
          ...(route.contentType ? { 'content-type': route.contentType } : {}),
          'content-length': route.body.length,
          ...route.headers,
        });
        record.bytesSent = route.body.length;
        response.end(route.body);
        return;
      case 'redirect':
        response.writeHead(route.status, { location: route.location, 'content-type': 'text/plain' }).end('moved');
        return;
      case 'status':
        response.writeHead(route.status, { 'content-type': 'text/plain' }).end(`status ${route.status}`);
        return;
      case 'hang':
        if (route.firstChunk === null) return;
        response.writeHead(200, { 'content-type': route.contentType });
        record.bytesSent = route.firstChunk.length;
        response.write(route.firstChunk);
        return;
      case 'stream':
        this.streamBody(route, response, record);
        return;
    }
  }

  private streamBody(route: Extract<TestRoute, { kind: 'stream' }>, response: ServerResponse, record: TestHttpsRequest): void {
    response.writeHead(200, { 'content-type': route.contentType, ...(route.declareLength ? { 'content-length': route.totalBytes } : {}) });
    const chunk = Buffer.alloc(route.chunkBytes, 'a');
    const writeMore = () => {
      while (record.bytesSent < route.totalBytes && !response.destroyed) {
        const size = Math.min(chunk.length, route.totalBytes - record.bytesSent);
        record.bytesSent += size;
        if (!response.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
          response.once('drain', writeMore);
          return;
        }
      }
      if (!response.destroyed) response.end();
    };
    writeMore();
  }
}
