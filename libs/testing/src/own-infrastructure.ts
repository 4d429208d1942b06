import { execFileSync, spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';
import { expectEventually } from './expect-eventually';

interface Launch {
  file: string;
  args: string[];
  options?: SpawnOptions;
}

/**
 * A server a test started itself, on its own port, from the machine's (Debian's) binaries: a
 * fault test stops, kills and restarts only this process, by the pid it started, and never
 * the machine's shared PostgreSQL, Redis or NATS.
 */
export class OwnServer {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private log = '';

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly launch: () => Launch,
    private readonly answers: () => Promise<boolean>,
    /** How this server is asked to stop (as its own service manager would). */
    private readonly stopSignal: NodeJS.Signals = 'SIGTERM',
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the server wrote (its own log lines), for a failure's message. */
  output(): string {
    return this.log;
  }

  /** Starts it and waits until it answers on its port (or fails with its output if it exits). */
  async start(timeoutMs = 30_000): Promise<void> {
    const { file, args, options } = this.launch();
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (chunk: Buffer) => (this.log = (this.log + chunk.toString()).slice(-20_000)));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await expectEventually(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${this.name} exited (${child.signalCode ?? child.exitCode}):\n${this.log}`);
        if (!(await this.answers())) throw new Error(`${this.name} does not answer on ${this.port} yet`);
      },
      { timeoutMs, intervalMs: 100 },
    );
  }

  /** Sends `signal` (its stop signal by default) to the process this object started and waits until it has exited. */
  async stop(signal: NodeJS.Signals = this.stopSignal): Promise<void> {
    if (!this.running || !this.child?.pid) return;
    process.kill(this.child.pid, signal);
    await this.exited;
  }

  /** Stopped (by `signal`, its stop signal by default) and started again on the same port and data. */
  async restart(signal: NodeJS.Signals = this.stopSignal): Promise<void> {
    await this.stop(signal);
    await this.start();
  }
}

function tcpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function postgresBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no PostgreSQL server in /usr/lib/postgresql (apt-get install postgresql)');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** The postgres user's ids: the server refuses to run as root. */
function postgresUser(): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

/**
 * PostgreSQL in `dir` (created with initdb on first start, trust auth on loopback) on `port`.
 * Its URL names `database`, created once the server first answers.
 */
export async function startOwnPostgres(port: number, dir: string, database: string): Promise<{ server: OwnServer; url: string }> {
  const bin = postgresBin();
  const user = process.getuid?.() === 0 ? postgresUser() : undefined;
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    mkdirSync(dir, { recursive: true });
    if (user) {
      chownSync(dir, user.uid, user.gid);
      // A test's temporary directory is root's alone (0700): the postgres user must pass through it.
      chmodSync(dirname(dir), 0o711);
    }
    const init = spawnSync(join(bin, 'initdb'), ['-D', dir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'], {
      ...user,
      encoding: 'utf8',
    });
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  }
  const server = new OwnServer(
    'postgres',
    port,
    () => ({
      file: join(bin, 'postgres'),
      args: ['-D', dir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
      options: { ...user },
    }),
    async () => spawnSync(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '1']).status === 0,
    // A fast shutdown, as `pg_ctl stop` does by default: SIGTERM is the smart one, which waits for
    // every client to disconnect, and the apps' pools never do (a "restart" would never end).
    'SIGINT',
  );
  await server.start();
  const asPostgres = ['-X', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres'];
  const exists = spawnSync('psql', [...asPostgres, '-qAt', '-c', `select 1 from pg_database where datname = '${database}'`], {
    encoding: 'utf8',
  });
  if (exists.stdout.trim() !== '1') execFileSync('psql', [...asPostgres, '-q', '-c', `create database "${database}"`]);
  return { server, url: `postgres://postgres@127.0.0.1:${port}/${database}` };
}

/**
 * Redis with the production settings docs/operations/redis.md recommends: the append-only file (fsync every
 * second) and `noeviction`, so a queue's jobs survive a restart and are never evicted.
 */
export async function startOwnRedis(port: number, dir: string): Promise<{ server: OwnServer; url: string }> {
  mkdirSync(dir, { recursive: true });
  const server = new OwnServer(
    'redis',
    port,
    () => ({
      file: 'redis-server',
      args: [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--maxmemory-policy',
        'noeviction',
        '--save',
        '',
      ],
    }),
    async () => spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG',
  );
  await server.start();
  return { server, url: `redis://127.0.0.1:${port}` };
}

export interface OwnNatsOptions {
  /**
   * nats-server configuration (an `authorization` block, `tls { … verify: true }`…), written to
   * `dir/nats.conf` and given with `-c`; the address, port and JetStream store stay the ones above.
   */
  config?: string;
}

/** NATS with JetStream stored on disk in `dir`. */
export async function startOwnNats(port: number, dir: string, options: OwnNatsOptions = {}): Promise<{ server: OwnServer; url: string }> {
  mkdirSync(dir, { recursive: true });
  const file = existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';
  const configArgs: string[] = [];
  if (options.config !== undefined) {
    const configFile = join(dir, 'nats.conf');
    writeFileSync(configFile, options.config);
    configArgs.push('-c', configFile);
  }
  const server = new OwnServer(
    'nats',
    port,
    () => ({ file, args: [...configArgs, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir] }),
    () => tcpAnswers(port),
  );
  await server.start();
  return { server, url: `nats://127.0.0.1:${port}` };
}
