import { execFileSync } from 'node:child_process';
import type * as dns from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { once } from 'node:events';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type Agent } from 'undici';
import { CallbackRefusedError, CallbackUrlPolicy, createGuardedDispatcher, refusalOf, type GuardedDispatcherOptions } from '../src';

interface Received {
  method: string;
  url: string;
  body: string;
}

/** A receiver that records every TCP connection and request it gets. */
class Receiver {
  readonly requests: Received[] = [];
  connections = 0;
  port = 0;
  respond: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end('ok');

  constructor(readonly server: http.Server | https.Server) {
    server.on('connection', () => this.connections++);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.requests.push({ method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
        this.respond(req, res);
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  reset(): void {
    this.requests.length = 0;
    this.connections = 0;
    this.respond = (_req, res) => res.end('ok');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * How many connections the receiver took before a probe of ours: loopback accepts them in
 * the order they were opened, so anything dialled before the probe has been counted once
 * the probe arrives, without waiting on a clock.
 */
async function connectionsBefore(receiver: Receiver): Promise<number> {
  // The receiver's count as each connection arrived, by the client's port.
  const countAt = new Map<number | undefined, number>();
  let probePort: number | undefined;
  let probeArrived = () => undefined as void;
  const onConnection = (socket: net.Socket) => {
    countAt.set(socket.remotePort, receiver.connections);
    if (socket.remotePort === probePort) probeArrived();
  };
  receiver.server.on('connection', onConnection);
  const probe = net.connect(receiver.port, '127.0.0.1');
  try {
    await once(probe, 'connect');
    probePort = probe.localPort;
    await new Promise<void>((resolve) => {
      probeArrived = resolve;
      if (countAt.has(probePort)) resolve();
    });
    return (countAt.get(probePort) as number) - 1;
  } finally {
    receiver.server.off('connection', onConnection);
    probe.destroy();
  }
}

type LookupAnswer = (call: number) => dns.LookupAddress[];

/** Answers from a script instead of DNS, counting how often it was asked. */
function scriptedLookup(answer: LookupAnswer): { lookup: typeof dns.lookup; calls: () => number } {
  let calls = 0;
  const lookup = (
    _hostname: string,
    options: dns.LookupOptions,
    callback: (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void,
  ) => {
    const addresses = answer(++calls);
    process.nextTick(() => (options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family)));
  };
  return { lookup: lookup as unknown as typeof dns.lookup, calls: () => calls };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

describe('guarded dispatcher against real servers', () => {
  let certDir: string;
  let ca: string;
  let plain: Receiver;
  let secure: Receiver;
  const dispatchers: Agent[] = [];

  const dispatcher = (allowlist: string, options?: GuardedDispatcherOptions): Agent => {
    const agent = createGuardedDispatcher(new CallbackUrlPolicy(allowlist), options);
    dispatchers.push(agent);
    return agent;
  };

  const post = (url: string, agent: Agent) =>
    request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: '{"event":"test"}',
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    });

  beforeAll(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'guarded-dispatcher-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,DNS:hooks.example,IP:127.0.0.1',
        '-keyout',
        join(certDir, 'key.pem'),
        '-out',
        join(certDir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    ca = readFileSync(join(certDir, 'cert.pem'), 'utf8');
    plain = new Receiver(http.createServer());
    secure = new Receiver(https.createServer({ key: readFileSync(join(certDir, 'key.pem')), cert: ca }));
    await Promise.all([plain.listen(), secure.listen()]);
  });

  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((agent) => agent.destroy()));
    plain.reset();
    secure.reset();
  });

  afterAll(async () => {
    await Promise.all([plain.close(), secure.close()]);
    rmSync(certDir, { recursive: true, force: true });
  });

  it('delivers a POST to an allowlisted address', async () => {
    const response = await post(`http://127.0.0.1:${plain.port}/hook`, dispatcher('127.0.0.1'));
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('ok');
    expect(plain.requests).toEqual([{ method: 'POST', url: '/hook', body: '{"event":"test"}' }]);
  });

  it('refuses https://localhost when nothing is allowlisted: the name resolves to loopback', async () => {
    const error = await failureOf(post(`https://localhost:${secure.port}/hook`, dispatcher('', { tls: { ca } })));
    expect(refusalOf(error)).toBeInstanceOf(CallbackRefusedError);
    expect(refusalOf(error)?.reason).toMatch(/^callback host resolves to a loopback address \((127\.0\.0\.1|::1)\)$/);
    expect(secure.connections).toBe(0);
    expect(secure.requests).toEqual([]);
  });

  it('refuses a name that is not allowlisted even though the address it resolves to is', async () => {
    const error = await failureOf(post(`https://localhost:${secure.port}/hook`, dispatcher('127.0.0.1,::1', { tls: { ca } })));
    expect(refusalOf(error)?.reason).toMatch(/^callback host resolves to a loopback address/);
    expect(secure.connections).toBe(0);
  });

  it('lets an allowlisted name through over verified TLS', async () => {
    const response = await post(`https://localhost:${secure.port}/hook`, dispatcher('localhost', { tls: { ca } }));
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    expect(secure.requests).toHaveLength(1);
  });

  it('keeps certificate verification on: without the test CA the self-signed receiver is rejected', async () => {
    const error = await failureOf(post(`https://localhost:${secure.port}/hook`, dispatcher('localhost')));
    expect(refusalOf(error)).toBeNull();
    expect((error as NodeJS.ErrnoException).code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
    expect(secure.requests).toEqual([]);
  });

  it.each(['http://127.0.0.1:PORT/hook', 'https://127.0.0.1:PORT/hook', 'http://[::ffff:127.0.0.1]:PORT/hook', 'http://[::1]:PORT/hook'])(
    'refuses the literal address in %s before connecting',
    async (template) => {
      const error = await failureOf(post(template.replace('PORT', String(plain.port)), dispatcher('')));
      expect(refusalOf(error)?.reason).toMatch(/^callback_url points to an? (IPv4-mapped )?loopback address/);
      expect(await connectionsBefore(plain)).toBe(0);
    },
  );

  it('connects to the address the guard checked: a second, different DNS answer cannot slip in', async () => {
    // A rebinding resolver: public for whoever asks first, loopback (our receiver) afterwards.
    const { lookup, calls } = scriptedLookup((call) => [{ address: call === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }]);
    const error = await failureOf(post(`http://rebind.example:${plain.port}/hook`, dispatcher('', { lookup, connectTimeoutMs: 1_000 })));
    // The checked public address was the one dialled (and it does not answer on this port).
    expect(refusalOf(error)).toBeNull();
    expect(calls()).toBe(1);
    expect(plain.connections).toBe(0);
    expect(plain.requests).toEqual([]);
  });

  it('refuses a name when any of its addresses is not public', async () => {
    const { lookup } = scriptedLookup(() => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    const error = await failureOf(post(`http://rebind.example:${plain.port}/hook`, dispatcher('', { lookup })));
    expect(refusalOf(error)?.reason).toBe('callback host resolves to a loopback address (127.0.0.1)');
    expect(plain.connections).toBe(0);
  });

  it('connects an allowlisted name to what the lookup answered', async () => {
    const { lookup, calls } = scriptedLookup(() => [{ address: '127.0.0.1', family: 4 }]);
    const response = await post(`https://hooks.example:${secure.port}/hook`, dispatcher('hooks.example', { lookup, tls: { ca } }));
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    expect(calls()).toBe(1);
    expect(secure.requests).toHaveLength(1);
  });

  it('does not follow redirects', async () => {
    plain.respond = (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${plain.port}/elsewhere` });
      res.end();
    };
    const response = await post(`http://127.0.0.1:${plain.port}/hook`, dispatcher('127.0.0.1'));
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`http://127.0.0.1:${plain.port}/elsewhere`);
    await response.body.dump();
    expect(plain.requests.map((received) => received.url)).toEqual(['/hook']);
  });
});
