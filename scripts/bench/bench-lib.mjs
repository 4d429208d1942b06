// Helpers for the benchmark scripts that start their own Waggle processes and measure them:
// free ports, child processes with graceful SIGTERM, CPU accounting from /proc,
// nearest-rank percentiles and autocannon runs that keep exact response times.
// Same method as scripts/bench/gateway.mjs (docs/benchmarks/gateway.md), made reusable.
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

const POLL_MS = 50;
/** The built entry points the benchmarks start or load, by name. */
export const DIST_ENTRIES = {
  migrate: 'dist/tools/migrate/src/main.js',
  cli: 'dist/tools/cli/src/main.js',
  fake: 'dist/tools/fake-provider/src/main.js',
  catalog: 'dist/apps/catalog/src/main.js',
  invocation: 'dist/apps/invocation/src/main.js',
  agent: 'dist/apps/agent/src/main.js',
  asset: 'dist/apps/asset/src/main.js',
  'knowledge-base': 'dist/apps/knowledge-base/src/main.js',
  gateway: 'dist/apps/gateway/src/main.js',
  dispatcher: 'dist/apps/callback-dispatcher/src/main.js',
  testing: 'dist/libs/testing/src/index.js',
  webhooks: 'dist/libs/webhooks/src/index.js',
};

/** The named entries of DIST_ENTRIES (what a benchmark checks with exitUnlessBuilt and starts). */
export const distEntries = (...names) => Object.fromEntries(names.map((name) => [name, DIST_ENTRIES[name]]));

export const START_TIMEOUT_MS = 30_000;
export const EXIT_TIMEOUT_MS = 20_000; // above the apps' default SHUTDOWN_GRACE_MS
const OUTPUT_TAIL = 8_000;

export const log = (line) => process.stderr.write(`bench: ${line}\n`);
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Ports are picked below the kernel's ephemeral range, as libs/testing's freePort does (see
// there): an outgoing connection or a listen(0) cannot take one between the pick and the bind.
const EPHEMERAL_LOW = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
})();
const PICK = { high: Math.max(EPHEMERAL_LOW - 1, 11_000) };
PICK.low = Math.max(10_000, PICK.high - 15_000);
const handedOut = new Set();

export async function freePort() {
  const listens = (port) =>
    new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = PICK.low + Math.floor(Math.random() * (PICK.high - PICK.low + 1));
    if (!handedOut.has(port) && (await listens(port))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port found in ${PICK.low}-${PICK.high}`);
}

/**
 * One HTTP request on a fresh connection; resolves with status, headers and the raw body,
 * or status 0 when nothing answered.
 */
export function httpRequest(port, path, { method = 'GET', headers = {}, body, timeoutMs = 5_000 } = {}) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.once('error', () => resolve({ status: 0 }));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve({ status: 0 }));
    req.end(body);
  });
}

export function machine() {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown CPU';
  const cores = (cpuinfo.match(/^processor\s*:/gm) ?? []).length || cpus().length;
  return { node: process.version, cpu: model, cores, date: new Date().toISOString(), loadAverage: loadAverage() };
}

export function loadAverage() {
  return existsSync('/proc/loadavg') ? readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') : 'n/a';
}

function cmdlineOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** This process's parent, grandparent… (npm, a shell, `timeout`), whose command lines name this script too. */
function ancestors() {
  const found = [];
  let pid = process.ppid;
  while (pid > 1 && found.length < 32) {
    found.push(pid);
    const stat = readOr(`/proc/${pid}/stat`, '');
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? 0);
  }
  return found;
}

/**
 * Other Waggle apps and benchmark scripts on this machine (by command line), excluding
 * this process and its own children. Other apps share the NATS queue groups (another
 * catalog or invocation would answer some of this bench's requests); other benchmarks
 * compete for the cores.
 */
export function otherWaggleProcesses(ownPids = []) {
  if (!existsSync('/proc')) return [];
  const own = new Set([process.pid, ...ownPids, ...ancestors()]);
  const found = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (own.has(Number(pid))) continue;
    const cmdline = cmdlineOf(pid);
    const what = /dist\/apps\/([\w-]+)\/src\/main\.js/.exec(cmdline)?.[1] ?? /(scripts\/bench\/[\w.-]+)/.exec(cmdline)?.[1];
    if (what) found.push({ pid: Number(pid), what });
  }
  return found;
}

/**
 * A built entry point as a child process (`nodeArgs` before it, `args` after it), with the
 * tail of its output for error reports. It runs in its own process group, so a Ctrl-C in
 * the terminal reaches only the benchmark, which can then put things back before it stops
 * the processes.
 */
export function startProcess(name, entry, env, nodeArgs = [], args = []) {
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk.toString()).slice(-OUTPUT_TAIL);
  };
  // A gateway takes a free metrics port unless told one: the default (9464) may be another stack's.
  const metrics = entry.includes('apps/gateway/') && env.METRICS_PORT === undefined ? { METRICS_PORT: '0' } : {};
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: { ...env, ...metrics },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const proc = { name, child, pid: child.pid, exit: null, output: () => output };
  proc.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      proc.exit = { code, signal };
      resolve(proc.exit);
    }),
  );
  return proc;
}

/** SIGTERM, then SIGKILL after EXIT_TIMEOUT_MS; resolves with how it ended. */
export async function stopProcess(proc) {
  if (proc.exit) return { ...proc.exit, alreadyExited: true };
  proc.child.kill('SIGTERM');
  const done = await Promise.race([proc.exited, sleep(EXIT_TIMEOUT_MS).then(() => null)]);
  if (done) return done;
  proc.child.kill('SIGKILL');
  await proc.exited;
  return { ...proc.exit, killed: true };
}

/** Polls until `check` returns true; throws with the process's output when it exits or times out. */
export async function waitFor(proc, what, check) {
  const started = performance.now();
  for (;;) {
    if (proc.exit)
      throw new Error(`${proc.name} exited (code ${proc.exit.code}, signal ${proc.exit.signal}) before ${what}\n${proc.output()}`);
    if (await check()) return;
    if (performance.now() - started > START_TIMEOUT_MS)
      throw new Error(`${proc.name}: not ${what} within ${START_TIMEOUT_MS / 1000} s\n${proc.output()}`);
    await sleep(POLL_MS);
  }
}

/**
 * Puts the shipped model catalog back (`cli catalog load --force`) while the catalog service is
 * still up; a failure is added to `failures`. True when it was restored.
 */
export function restoreShippedCatalog(cliEntry, env, failures) {
  try {
    log('restoring the shipped model catalog (cli catalog load --force)');
    runNode(cliEntry, ['catalog', 'load', '--force', '--json'], env, 'catalog restore');
    return true;
  } catch (error) {
    failures.push(`restoring the shipped catalog: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

/** Stops the processes, last started first; one that ended other than by the SIGTERM is added to `failures`. */
export async function stopAll(procs, failures) {
  for (const proc of [...procs].reverse()) {
    const exit = await stopProcess(proc);
    if (exit.code !== 0 && exit.signal !== 'SIGTERM' && !exit.alreadyExited)
      failures.push(`${proc.name} exited with ${exit.code ?? exit.signal}`);
  }
}

/** Waits until the gateway's readiness (which asks each service over NATS) reports every one of `services` up. */
export async function waitForGatewayToSee(gateway, services) {
  await waitFor(gateway, `seeing ${services.join(' and ')} up`, async () => {
    const ready = await httpRequest(gateway.port, '/health/ready');
    try {
      const seen = JSON.parse(ready.body?.toString() ?? '').services;
      return services.every((service) => seen?.[service]?.status === 'up');
    } catch {
      return false;
    }
  });
}

/** Runs a built Node entry point to completion; returns stdout, throws with its output on a non-zero exit. */
export function runNode(entry, args, env, what) {
  const result = spawnSync(process.execPath, [join(ROOT, entry), ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(
      `${what} failed (exit ${result.status ?? result.signal}); are PostgreSQL, Redis and NATS up? (npm run infra)\n${result.stdout ?? ''}${result.stderr ?? ''}`,
    );
  }
  return result.stdout;
}

const CLOCK_TICKS = (() => {
  const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(result.stdout) > 0 ? Number(result.stdout) : 100;
})();
const INFRA_COMMANDS = new Set(['nats-server', 'redis-server', 'postgres']);

function readOr(path, fallback) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

/** Fields of /proc/<pid>/stat (or a thread's) after the command name; empty when it is gone. */
function statFields(pid, tid) {
  const stat = readOr(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, '');
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : [];
}

/** user + system CPU ticks a process (or, with `tid`, one of its threads) has used so far (0 when it is gone). */
function processTicks(pid, tid) {
  const fields = statFields(pid, tid);
  return Number(fields[11] ?? 0) + Number(fields[12] ?? 0); // utime, stime (fields 14 and 15)
}

/**
 * A process and its children: PostgreSQL forks a backend per connection. Children that
 * ended and were reaped are in the parent's cutime/cstime, so a backend that exits between
 * two snapshots is still counted, once.
 */
function treeTicks(pid, children) {
  const fields = statFields(pid);
  const reaped = Number(fields[13] ?? 0) + Number(fields[14] ?? 0); // cutime, cstime (fields 16 and 17)
  return processTicks(pid) + reaped + (children.get(String(pid)) ?? 0);
}

/**
 * The process listening on a loopback TCP port (from /proc/net/tcp{,6} and the processes'
 * socket descriptors), or null: NATS, Redis and PostgreSQL are told apart by port, since a
 * machine may run several servers of one kind (a second nats-server for other work).
 */
export function listeningPid(port) {
  const inodes = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readOr(table, '').split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === '0A' && local && parseInt(local.split(':')[1], 16) === port && inode !== '0') inodes.add(`socket:[${inode}]`);
    }
  }
  if (inodes.size === 0) return null;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let fds = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return Number(pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

/**
 * NATS, Redis and PostgreSQL as processes to account ({name, pid}, PostgreSQL with its
 * backends), found by the ports in the URLs the apps use; missing ones are left out (a
 * server in a container, or on another machine) and named in `missing`.
 */
export function infraProcesses({ natsUrl, redisUrl, databaseUrl }) {
  const portOf = (url, fallback) => {
    try {
      return Number(new URL(url.split(',')[0]).port) || fallback;
    } catch {
      return fallback;
    }
  };
  const wanted = [
    { name: 'NATS', port: portOf(natsUrl, 4222) },
    { name: 'Redis', port: portOf(redisUrl, 6379) },
    { name: 'PostgreSQL', port: portOf(databaseUrl, 5432), tree: true },
  ];
  const found = [];
  const missing = [];
  for (const { name, port, tree } of wanted) {
    const pid = listeningPid(port);
    if (pid) found.push({ name, pid, ...(tree ? { tree } : {}) });
    else missing.push(`${name} (:${port})`);
  }
  return { procs: found, missing };
}

/**
 * Where the machine's CPU time goes: this script (the load generator runs in it), each of
 * `procs` ({name, pid}; with `tree`, the process and its children), NATS, Redis and
 * PostgreSQL processes not among them ("infra") and everything else.
 */
export function cpuSnapshot(procs) {
  const [, ...ticks] = readOr('/proc/stat', 'cpu 0').split('\n')[0].trim().split(/\s+/).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = ticks;
  // Per process: PostgreSQL starts and ends backends, and a process that ended between two
  // snapshots must not subtract its whole past from the difference.
  const own = new Set(procs.map((proc) => String(proc.pid)));
  const roots = new Set(procs.filter((proc) => proc.tree).map((proc) => String(proc.pid)));
  const children = new Map();
  const infra = new Map();
  for (const pid of existsSync('/proc') ? readdirSync('/proc').filter((name) => /^\d+$/.test(name)) : []) {
    if (own.has(pid) || !INFRA_COMMANDS.has(readOr(`/proc/${pid}/comm`, '').trim())) continue;
    const fields = statFields(pid);
    const used = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
    if (roots.has(fields[1])) children.set(fields[1], (children.get(fields[1]) ?? 0) + used);
    else infra.set(pid, used);
  }
  return {
    at: performance.now(),
    busy: user + nice + system + irq + softirq + steal,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
    bench: processTicks(process.pid),
    procs: Object.fromEntries(procs.map((proc) => [proc.name, proc.tree ? treeTicks(proc.pid, children) : processTicks(proc.pid)])),
    // The JavaScript thread alone (its thread id is the process id); the rest is V8's
    // background threads (garbage collection, compilation) and libuv's pool.
    mainThreads: Object.fromEntries(procs.map((proc) => [proc.name, processTicks(proc.pid, proc.pid)])),
    infra,
  };
}

/** CPU used between two snapshots, in cores (1 = one core busy for the whole interval). */
export function cpuBetween(before, after) {
  const seconds = (after.at - before.at) / 1000;
  const cores = (ticks) => ticks / CLOCK_TICKS / seconds;
  const procs = Object.fromEntries(Object.keys(before.procs).map((name) => [name, cores(after.procs[name] - before.procs[name])]));
  const mainThreads = Object.fromEntries(
    Object.keys(before.mainThreads).map((name) => [name, cores(after.mainThreads[name] - before.mainThreads[name])]),
  );
  const bench = cores(after.bench - before.bench);
  let infraTicks = 0;
  for (const [pid, ticks] of after.infra) infraTicks += Math.max(0, ticks - (before.infra.get(pid) ?? 0));
  const infra = cores(infraTicks);
  const busy = cores(after.busy - before.busy);
  const procSum = Object.values(procs).reduce((sum, value) => sum + value, 0);
  return { seconds, busy, bench, ...procs, infra, other: Math.max(0, busy - bench - procSum - infra), mainThreads };
}

/**
 * CPU time per request of each process (and infra, bench), in ms, from a cpuBetween result;
 * `mainThreads` holds the same for each process's JavaScript thread alone.
 */
export function cpuMsPerRequest(cpu, names, requests) {
  const per = (cores) => (cores * cpu.seconds * 1000) / (requests || 1);
  return {
    ...Object.fromEntries([...names, 'infra', 'bench'].map((name) => [name, per(cpu[name])])),
    mainThreads: Object.fromEntries(names.map((name) => [name, per(cpu.mainThreads?.[name] ?? NaN)])),
  };
}

/**
 * Waits until the processes have gone quiet (under `maxCores` together over `windowMs`),
 * so work left over from one run (answers still in flight, batched writes) is not charged
 * to the next; gives up after `timeoutMs`. Resolves with the last window's cores. With
 * `wholeMachine`, every process on the machine counts (another session's tests, say).
 */
export async function settle(procs, { maxCores = 0.05, windowMs = 500, timeoutMs = 10_000, wholeMachine = false } = {}) {
  const started = performance.now();
  for (;;) {
    const before = cpuSnapshot(procs);
    await sleep(windowMs);
    const cpu = cpuBetween(before, cpuSnapshot(procs));
    const cores = wholeMachine ? cpu.busy : procs.reduce((sum, proc) => sum + cpu[proc.name], 0);
    if (cores < maxCores || performance.now() - started > timeoutMs) return cores;
  }
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The median of unsorted values, readings that are not numbers (a sample that failed) left out. */
export function median(values) {
  return percentile(
    values.filter(Number.isFinite).sort((a, b) => a - b),
    50,
  );
}

/** p50, p99, mean and max of unsorted values (ms). */
export function summarize(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((sum, value) => sum + value, 0) / (sorted.length || 1),
    min: sorted[0] ?? NaN,
    max: sorted.at(-1) ?? NaN,
  };
}

/**
 * One autocannon run. With `samples`, also keeps every 2xx response time as autocannon
 * measured it (process.hrtime, fractional ms): its own histogram stores whole milliseconds.
 * `procs` are the processes whose CPU is accounted ({name, pid}).
 */
export async function cannon({ url, method = 'GET', headers = {}, body, connections, duration, samples = false, procs = [] }) {
  const times = [];
  const before = cpuSnapshot(procs);
  const instance = autocannon({ url, method, headers, body, connections, duration, pipelining: 1 });
  if (samples) {
    instance.on('response', (_client, statusCode, _resBytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
    });
  }
  const result = await instance;
  const cpu = cpuBetween(before, cpuSnapshot(procs));
  const run = {
    connections,
    duration,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
    failed: result.errors + result.timeouts + result.non2xx,
    autocannonLatencyMs: { p50: result.latency.p50, p99: result.latency.p99, average: result.latency.average, max: result.latency.max },
    cpuCores: cpu,
    cpuMsPerRequest: cpuMsPerRequest(
      cpu,
      procs.map((proc) => proc.name),
      result.requests.total,
    ),
  };
  if (samples) run.exactLatencyMs = summarize(times);
  return run;
}

export const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

const SHIPPED_CATALOG = 'apps/catalog/src/models/data/models.yaml';

/** The shipped model catalog plus one chat model served by the fake provider, under `version` (newer than any real one); `extra` overrides its fields. */
export function benchCatalogYaml(version, model, extra = {}) {
  const catalog = YAML.parse(readFileSync(join(ROOT, SHIPPED_CATALOG), 'utf8'));
  catalog.version = version;
  catalog.providers.fake = { name: 'Fake Provider', api: 'openai-compatible' };
  catalog.makers.fake = 'Fake Labs';
  catalog.models = catalog.models.filter((entry) => entry.id !== model);
  catalog.models.push({
    id: model,
    name: 'Fake Chat',
    provider: 'fake',
    maker: 'fake',
    provider_model_id: model,
    model_type: 'llm',
    context_limit: 8192,
    vision: false,
    reasoning: false,
    tool_calling: false,
    json_schema: false,
    status: 'active',
    // Every catalog model is priced (the catalog refuses one that is not): a cheap model's list price.
    pricing: { input: 0.15, cached_input: 0.075, cache_write: 0.15, output: 0.6, price_version: 'bench' },
    ...extra,
  });
  return YAML.stringify(catalog);
}

/** A definition file with one deployment whose `default` variant asks `model` the input `question`. */
export function benchPromptYaml(deployment, model) {
  return YAML.stringify({
    prompts: [{ deployment, variants: [{ name: 'default', model, messages: [{ role: 'user', content: '{{ question }}' }] }] }],
  });
}

/**
 * The prompt-invoke stack a benchmark measures, against the running PostgreSQL, Redis and NATS:
 * the fake provider (a process, with `fakeEnv`), `apps` built in dist/ on free loopback ports
 * with `env` (invocation pointed at the fake, provider retries off), ready once the gateway sees
 * the others up; then the shipped catalog plus `model` (version `catalogVersion`), a workspace
 * `workspace` on the enterprise plan and the prompt deployment `deployment` asking `model`, made
 * with the CLI (files in `tmp`). Every process started is pushed onto `procs` at once, so the
 * caller stops them whatever fails, and `state.catalogLoaded` is set before the catalog is
 * touched (the caller puts the shipped one back: restoreShippedCatalog).
 */
export async function startPromptStack({ apps, env, fakeEnv = {}, tmp, model, deployment, catalogVersion, workspace, procs, state }) {
  const fakePort = await freePort();
  const fake = startProcess('fake-provider', DIST_ENTRIES.fake, {
    ...env,
    FAKE_PROVIDER_PORT: String(fakePort),
    FAKE_PROVIDER_HOST: '127.0.0.1',
    ...fakeEnv,
  });
  procs.push(fake);
  await waitFor(fake, 'listening', async () => (await httpRequest(fakePort, '/_fake/requests')).status === 200);
  const appEnv = { ...env, FAKE_BASE_URL: `http://127.0.0.1:${fakePort}/v1`, FAKE_API_KEY: 'bench', PROVIDER_MAX_RETRIES: '0' };
  const stack = [];
  for (const name of apps) {
    const port = await freePort();
    const proc = Object.assign(startProcess(name, DIST_ENTRIES[name], { ...appEnv, PORT: String(port) }), { port });
    stack.push(proc);
    procs.push(proc);
  }
  for (const proc of stack) await waitFor(proc, 'live', async () => (await httpRequest(proc.port, '/health/live')).status === 200);
  const gateway = stack.find((proc) => proc.name === 'gateway');
  await waitForGatewayToSee(gateway, [...new Set(apps.filter((name) => name !== 'gateway'))]);
  const catalogFile = join(tmp, 'models.yaml');
  writeFileSync(catalogFile, benchCatalogYaml(catalogVersion, model));
  state.catalogLoaded = true;
  runNode(DIST_ENTRIES.cli, ['catalog', 'load', '--file', catalogFile, '--json'], env, 'catalog load');
  const created = JSON.parse(
    runNode(DIST_ENTRIES.cli, ['workspace', 'create', '--name', workspace, '--plan', 'enterprise', '--json'], env, 'workspace create'),
  );
  const promptFile = join(tmp, 'prompts.yaml');
  writeFileSync(promptFile, benchPromptYaml(deployment, model));
  runNode(DIST_ENTRIES.cli, ['apply', '-f', promptFile, '--workspace', created.workspace_id, '--json'], env, 'apply');
  return { fake, fakePort, stack, gateway, auth: { authorization: `Bearer ${created.api_key}` } };
}

/** Stops the benchmark when an entry point it starts has not been built. */
export function exitUnlessBuilt(entries) {
  const missing = Object.values(entries).filter((entry) => !existsSync(join(ROOT, entry)));
  if (missing.length === 0) return;
  log(`${missing.join(', ')} missing: run npm run build first`);
  process.exit(1);
}
