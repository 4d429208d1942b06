/**
 * `npm run up`'s supervisor (scripts/start-all.mjs) as an operator runs it: real apps,
 * real signals. Each stack gets free ports and its own state dir, and every process it
 * started is ended by pid, whatever happens.
 */
import { DOMAIN_SERVICES } from '@waggle/contracts';
import { toErrorBody, WaggleException } from '@waggle/errors';
import { expectEventually, freePort, readSse, REPO_ROOT } from '@waggle/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type ReplicaState = {
  name: string;
  app: string;
  replica: number;
  pid: number;
  port: number;
  status: string;
  restarts: number;
  last_exit: string | null;
  log: string;
};
type UpState = { supervisor: { pid: number; status: string; url: string; proxy: boolean; replicas: number }; apps: ReplicaState[] };
type Readiness = { status: string; services: Record<string, { status: string }> };

const STARTUP_MS = 180_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A WAGGLE_PORT_BASE whose ports for `replicas` replicas (a block of ten each) are all free now. */
async function freePortBase(replicas: number): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const base = await freePort();
    const ports = Array.from({ length: replicas }, (_, block) => Array.from({ length: 7 }, (_, slot) => base + 10 * block + slot)).flat();
    if (ports.every((port) => port <= 65535) && (await Promise.all(ports.map(canListen))).every(Boolean)) return base;
  }
  throw new Error('no free block of ports for the replicas');
}

class SupervisorProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly stateDir = mkdtempSync(join(tmpdir(), 'waggle-up-'));
  /** Every app pid the state file ever named, restarted processes' included. */
  readonly pidsSeen = new Set<number>();
  private text = '';

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/start-all.mjs'), ...args], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SHUTDOWN_GRACE_MS: '3000',
        WAGGLE_LOGS: '',
        WAGGLE_REPLICAS: '',
        ...env,
        WAGGLE_STATE_DIR: this.stateDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.text += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.text += chunk.toString()));
    // 'close': by then everything it printed has been read.
    this.exited = new Promise((resolve) => this.child.once('close', (code) => resolve(code)));
  }

  output(): string {
    return this.text;
  }

  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  state(): UpState {
    const state = JSON.parse(readFileSync(join(this.stateDir, 'up.json'), 'utf8')) as UpState;
    for (const app of state.apps) if (app.pid) this.pidsSeen.add(app.pid);
    return state;
  }

  replica(name: string): ReplicaState {
    const replica = this.state().apps.find((app) => app.name === name);
    if (!replica) throw new Error(`${name} is not in the state file`);
    return replica;
  }

  log(file: string): string {
    const path = join(this.stateDir, 'logs', file);
    return existsSync(path) ? readFileSync(path, 'utf8') : '';
  }

  /**
   * Ctrl-C if it still runs, then SIGKILL for any app it did not see exit (it was
   * killed itself, or one overstayed): only processes this test started, by pid.
   */
  async end(): Promise<void> {
    if (this.running()) {
      this.child.kill('SIGINT');
      await expectEventually(() => expect(this.running()).toBe(false), { timeoutMs: 30_000, intervalMs: 100 }).catch(() =>
        this.child.kill('SIGKILL'),
      );
    }
    if (existsSync(join(this.stateDir, 'up.json'))) {
      for (const app of this.state().apps)
        if (['running', 'stopping', 'starting'].includes(app.status) && isAlive(app.pid)) process.kill(app.pid, 'SIGKILL');
    }
    rmSync(this.stateDir, { recursive: true, force: true });
  }
}

describe('npm run up: the supervisor', () => {
  describe('with --replicas 2', () => {
    let up: SupervisorProcess;
    let url: string;
    let apiKey: string;

    const readiness = async (): Promise<{ status: number; body: Readiness }> => {
      const response = await fetch(`${url}/health/ready`);
      return { status: response.status, body: (await response.json()) as Readiness };
    };
    const replicaReady = async (port: number) => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status;

    beforeAll(async () => {
      const port = await freePort();
      up = new SupervisorProcess(['--replicas', '2'], {
        PORT: String(port),
        WAGGLE_PORT_BASE: String(await freePortBase(2)),
        LOG_LEVEL: 'info',
      });
      url = `http://127.0.0.1:${port}`;
      await expectEventually(
        () => {
          if (!up.running()) throw new Error(`the supervisor exited:\n${up.output()}`);
          expect(up.state().supervisor.status).toBe('ready');
        },
        { timeoutMs: STARTUP_MS, intervalMs: 250 },
      );
    }, STARTUP_MS + 10_000);

    afterAll(async () => up?.end(), 60_000);

    it('is ready through the one public address, every service up, fourteen processes on their own ports', async () => {
      const { status, body } = await readiness();
      expect(status).toBe(200);
      expect(Object.keys(body.services).sort()).toEqual([...DOMAIN_SERVICES].sort());
      for (const service of DOMAIN_SERVICES) expect(body.services[service]).toMatchObject({ status: 'up' });

      const state = up.state();
      expect(state.supervisor).toMatchObject({ pid: up.child.pid, status: 'ready', url, proxy: true, replicas: 2 });
      expect(state.apps.map((app) => app.name).sort()).toEqual(
        ['gateway', ...DOMAIN_SERVICES].flatMap((app) => [`${app}#1`, `${app}#2`]).sort(),
      );
      expect(new Set(state.apps.map((app) => app.port)).size).toBe(14);
      expect(new Set(state.apps.map((app) => app.pid)).size).toBe(14);
      expect(state.apps.map((app) => app.port)).not.toContain(Number(new URL(url).port));
      for (const app of state.apps) {
        expect(app).toMatchObject({
          status: 'running',
          restarts: 0,
          last_exit: null,
          log: join(up.stateDir, 'logs', `${app.app}-${app.replica}.log`),
        });
        expect(isAlive(app.pid)).toBe(true);
        expect(await replicaReady(app.port)).toBe(200);
      }
    });

    it('creates the demo workspace with the CLI once ready, and its key works through the proxy', async () => {
      const file = join(up.stateDir, 'demo-workspace.json');
      const demo = await expectEventually(() => JSON.parse(readFileSync(file, 'utf8')) as { workspace_id: string; api_key: string }, {
        timeoutMs: 30_000,
      });
      expect(demo.api_key).toMatch(/^wgl_/);
      apiKey = demo.api_key;
      const models = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(models.status).toBe(200);
    });

    // Evidence from the gateways themselves, not from the proxy: each logs the requests it
    // served (URL included), so a marked request shows up in exactly one gateway's log.
    it('spreads requests over both gateway replicas', async () => {
      const markers = Array.from({ length: 6 }, () => randomUUID());
      for (const marker of markers) expect((await fetch(`${url}/v1/error_codes?marker=${marker}`)).status).toBe(200);
      await expectEventually(() => {
        const logs = [up.log('gateway-1.log'), up.log('gateway-2.log')];
        for (const marker of markers) expect(logs.filter((log) => log.includes(marker))).toHaveLength(1);
        for (const log of logs) expect(markers.some((marker) => log.includes(marker))).toBe(true);
      });
    });

    it('restarts a killed invocation replica with backoff while the other one keeps serving', async () => {
      const before = up.replica('invocation#1');
      process.kill(before.pid, 'SIGKILL');
      await expectEventually(() => {
        expect(up.replica('invocation#1')).toMatchObject({ restarts: 1, last_exit: 'SIGKILL' });
        expect(up.output()).toMatch(/up: invocation#1 exited \(SIGKILL\); restarting in 1 s \(restart 1\)/);
      });

      // Until the new process is ready, only invocation#2 can answer invocation's requests.
      const answers: Array<{ status: number; body: unknown }> = [];
      const after = await expectEventually(
        async () => {
          const response = await fetch(`${url}/v1/private/prompts`, { headers: { authorization: `Bearer ${apiKey}` } });
          answers.push({ status: response.status, body: await response.json() });
          const now = up.replica('invocation#1');
          expect(now.pid).not.toBe(before.pid);
          expect(now.status).toBe('running');
          expect(await replicaReady(now.port)).toBe(200);
          return now;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      expect(answers.length).toBeGreaterThan(0);
      for (const answer of answers) expect(answer).toEqual({ status: 200, body: { prompts: [] } });
      expect(isAlive(before.pid)).toBe(false);
      expect(after).toMatchObject({ port: before.port, restarts: 1 });
      expect(up.replica('invocation#2')).toMatchObject({ restarts: 0, status: 'running' });
      expect((await readiness()).body.services.invocation.status).toBe('up');
    }, 120_000);

    it('keeps answering on the public address while a killed gateway restarts, then routes to it again', async () => {
      const before = up.replica('gateway#1');
      process.kill(before.pid, 'SIGKILL');
      const statuses: number[] = [];
      await expectEventually(
        async () => {
          const response = await fetch(`${url}/v1/error_codes`);
          await response.body?.cancel();
          statuses.push(response.status);
          const now = up.replica('gateway#1');
          expect(now).toMatchObject({ status: 'running', restarts: 1, last_exit: 'SIGKILL' });
          expect(now.pid).not.toBe(before.pid);
          expect(await replicaReady(now.port)).toBe(200);
          expect(up.output()).toMatch(/up: gateway#1 exited \(SIGKILL\); restarting in 1 s \(restart 1\)/);
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === 200)).toBe(true);

      // The restarted gateway serves again: a marked request lands in its log.
      const markers: string[] = [];
      await expectEventually(
        async () => {
          const marker = randomUUID();
          markers.push(marker);
          expect((await fetch(`${url}/v1/error_codes?marker=${marker}`)).status).toBe(200);
          const log = up.log('gateway-1.log');
          expect(markers.some((sent) => log.includes(sent))).toBe(true);
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
    }, 120_000);

    it('stops every app on Ctrl-C (SIGINT), each recorded pid gone, and exits 0', async () => {
      up.state();
      expect(up.pidsSeen.size).toBe(16); // fourteen, and the two killed ones
      up.child.kill('SIGINT');
      await expect(up.exited).resolves.toBe(0);
      const state = up.state();
      expect(state.supervisor.status).toBe('stopped');
      for (const app of state.apps) expect(app.status).toBe('stopped');
      for (const pid of up.pidsSeen) expect(isAlive(pid)).toBe(false);
      expect(up.output()).toContain('up: stopped');
      await expect(fetch(`${url}/health/live`)).rejects.toThrow();
    }, 60_000);
  });

  it(
    'does not restart an app that refuses its configuration (exit 78): it says so and stops the stack',
    async () => {
      // Only the knowledge-base service reads KB_CHUNK_TOKENS, and its env class wants 32 or more.
      const up = new SupervisorProcess([], {
        PORT: String(await freePort()),
        WAGGLE_PORT_BASE: String(await freePortBase(1)),
        KB_CHUNK_TOKENS: '1',
      });
      try {
        await expect(up.exited).resolves.toBe(78);
        expect(up.output()).toMatch(
          /up: knowledge-base#1 refused its configuration \(exit 78, EX_CONFIG\) and will not be restarted:\n[\s\S]*KB_CHUNK_TOKENS must not be less than 32/,
        );
        expect(up.output()).not.toMatch(/knowledge-base#1 exited/);
        const state = up.state();
        expect(state.supervisor.status).toBe('stopped');
        expect(state.apps.find((app) => app.name === 'knowledge-base#1')).toMatchObject({
          status: 'refused',
          restarts: 0,
          last_exit: 'code 78',
        });
        for (const app of state.apps.filter((app) => app.app !== 'knowledge-base')) expect(app.status).toBe('stopped');
        for (const pid of up.pidsSeen) expect(isAlive(pid)).toBe(false);
      } finally {
        await up.end();
      }
    },
    STARTUP_MS,
  );

  it('refuses a replica count it cannot run, with the usage, before starting anything', async () => {
    const up = new SupervisorProcess(['--replicas', '0'], {});
    try {
      await expect(up.exited).resolves.toBe(64);
      expect(up.output()).toContain('up: --replicas must be an integer from 1 to 16, not "0"');
      expect(up.output()).toContain('usage: npm run up -- [--replicas N]');
      expect(existsSync(join(up.stateDir, 'up.json'))).toBe(false);
    } finally {
      await up.end();
    }
  });
});

/**
 * The proxy alone (scripts/up/gateway-proxy.mjs, in its own Node process) in front of two
 * stand-in gateways whose behaviour the test controls: when an event is sent, when a
 * gateway stops listening. Each stand-in closes every connection after its answer, so a
 * stopped one is always met as a refused connection (the case pinned here), never as a
 * pooled socket that happens to have closed.
 */
describe('the gateway proxy', () => {
  class StandInGateway {
    server: Server | null = null;
    port = 0;

    constructor(
      readonly name: string,
      private readonly events: { release: Promise<void> },
    ) {}

    async listen(port = 0): Promise<void> {
      this.server = createServer((req, res) => void this.answer(req, res));
      await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
      const address = this.server.address();
      this.port = typeof address === 'object' && address ? address.port : 0;
    }

    async close(): Promise<void> {
      const server = this.server;
      if (!server) return;
      this.server = null;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }

    private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
      if (req.url === '/health/live')
        return void res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end('{"status":"ok"}');
      if (req.url === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
        res.write('data: first\n\n');
        await this.events.release;
        return void res.end('data: second\n\n');
      }
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of req) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).length;
      }
      // Raw pairs: two Set-Cookie headers stay two.
      res.writeHead(201, [
        'set-cookie',
        'a=1',
        'set-cookie',
        'b=2',
        'x-served-by',
        this.name,
        'content-type',
        'application/json',
        'connection',
        'close',
      ]);
      res.end(
        JSON.stringify({
          served_by: this.name,
          method: req.method,
          url: req.url,
          forwarded_for: req.headers['x-forwarded-for'],
          body_sha256: hash.digest('hex'),
          body_bytes: bytes,
        }),
      );
    }
  }

  type Echo = { served_by: string; method: string; url: string; forwarded_for: string; body_sha256: string; body_bytes: number };

  let releaseEvents!: () => void;
  const events = { release: new Promise<void>((resolve) => (releaseEvents = resolve)) };
  const first = new StandInGateway('gateway#1', events);
  const second = new StandInGateway('gateway#2', events);
  let proxy: ChildProcess;
  let proxyOutput = '';
  let url: string;

  const echo = async (init: RequestInit = {}, path = '/v1/anything?x=1'): Promise<{ response: Response; body: Echo }> => {
    const response = await fetch(`${url}${path}`, init);
    return { response, body: (await response.json()) as Echo };
  };

  beforeAll(async () => {
    await Promise.all([first.listen(), second.listen()]);
    const program = `
      import { GatewayProxy, unavailableBodyFromCatalog } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'scripts/up/gateway-proxy.mjs')).href)};
      const upstreams = JSON.parse(process.argv[1]);
      const proxy = new GatewayProxy({ upstreams, unavailableBody: unavailableBodyFromCatalog(${JSON.stringify(REPO_ROOT)}), log: (line) => console.error(line) });
      await proxy.listen(0, '127.0.0.1');
      for (const { name } of upstreams) proxy.upstreamStarted(name);
      console.log(JSON.stringify({ port: proxy.server.address().port }));`;
    const upstreams = [first, second].map(({ name, port }) => ({ name, port }));
    proxy = spawn(process.execPath, ['--input-type=module', '-e', program, JSON.stringify(upstreams)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proxy.stdout?.on('data', (chunk: Buffer) => (proxyOutput += chunk.toString()));
    proxy.stderr?.on('data', (chunk: Buffer) => (proxyOutput += chunk.toString()));
    const { port } = await expectEventually(() => JSON.parse(proxyOutput.split('\n')[0]) as { port: number });
    url = `http://127.0.0.1:${port}`;
    // Both stand-ins answer once the proxy's probes have found them.
    await expectEventually(async () => expect(new Set([(await echo()).body.served_by, (await echo()).body.served_by]).size).toBe(2));
  });

  afterAll(async () => {
    releaseEvents();
    if (proxy && proxy.exitCode === null) {
      const exited = new Promise((resolve) => proxy.once('exit', resolve));
      proxy.kill('SIGTERM');
      await exited;
    }
    await Promise.all([first.close(), second.close()].map((closing) => closing.catch(() => undefined)));
  });

  it('takes turns between the gateways, keeping status and headers, and adds X-Forwarded-For', async () => {
    const served: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const { response, body } = await echo({ headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(response.status).toBe(201);
      expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      expect(response.headers.get('x-served-by')).toBe(body.served_by);
      expect(body).toMatchObject({ method: 'GET', url: '/v1/anything?x=1', forwarded_for: '203.0.113.7, 127.0.0.1', body_bytes: 0 });
      served.push(body.served_by);
    }
    expect(new Set(served.slice(0, 2)).size).toBe(2);
    expect(served.slice(2)).toEqual(served.slice(0, 2));
  });

  it('streams a request body through whole', async () => {
    const payload = randomBytes(2 * 1024 * 1024);
    const { response, body } = await echo(
      { method: 'POST', body: payload, headers: { 'content-type': 'application/octet-stream' } },
      '/upload',
    );
    expect(response.status).toBe(201);
    expect(body).toMatchObject({
      method: 'POST',
      body_bytes: payload.length,
      body_sha256: createHash('sha256').update(payload).digest('hex'),
    });
  });

  it('passes server-sent events on as they are sent, not when the stream ends', async () => {
    const response = await fetch(`${url}/events`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const stream = readSse(response);
    // The gateway holds the second event until the client has the first.
    expect(await stream.next()).toEqual({ done: false, value: 'first' });
    releaseEvents();
    expect(await stream.next()).toEqual({ done: false, value: 'second' });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('sends a request, body and all, to the next gateway when one refuses the connection', async () => {
    await second.close();
    const payload = randomBytes(64 * 1024);
    for (let i = 0; i < 4; i += 1) {
      const { response, body } = await echo({ method: 'POST', body: payload }, '/upload');
      expect(response.status).toBe(201);
      expect(body).toMatchObject({
        served_by: 'gateway#1',
        body_bytes: payload.length,
        body_sha256: createHash('sha256').update(payload).digest('hex'),
      });
    }
    expect(proxyOutput).toContain('gateway#2 refused a connection; routing around it until it answers again');
  });

  it('answers 502 in the error shape while no gateway answers, and routes again once one does', async () => {
    await first.close();
    const response = await fetch(`${url}/v1/anything`);
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as Record<string, string>;
    expect(body).toEqual(toErrorBody(new WaggleException('upstream_request_failed'), 'en'));
    expect(body).toEqual({
      error: body.message,
      message: expect.any(String),
      error_code: 'upstream_request_failed',
      code: 'upstream_request_failed',
    });

    await second.listen(second.port);
    await expectEventually(async () => expect((await echo()).body.served_by).toBe('gateway#2'));
  });
});
