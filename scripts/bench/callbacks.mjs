#!/usr/bin/env node
// Callbacks: how many callbacks per second one callback-dispatcher delivers to a loopback
// receiver, and how long a callback takes to arrive after its run ended
// (docs/benchmarks/callbacks.md).
//
//   npm run build && npm run bench:callbacks [-- --mode all|dispatcher|stack] [--jobs N] [--rates 250,500]
//        [--steady-seconds N] [--stack-rates 20,50,100] [--stack-seconds N] [--concurrency N]
//        [--redis-url URL] [--database-url URL] [--latency-ms N] [--allow-others] [--json] [--json-file PATH]
//        [--log-dir DIR]   (the last 8 KB of each process's output, written there at the end)
//        [--cpu-prof DIR]  (a V8 CPU profile of the dispatcher alone, node --cpu-prof; it slows the dispatcher)
//
// Everything runs against the built dist/, on free loopback ports, with its own Redis
// database (default redis://127.0.0.1:6379/12, flushed at the start and the end, passed to
// every process as REDIS_URL) and its own PostgreSQL database (default waggle_bench,
// migrated first; its delivery log is emptied at the start). The callbacks go to a
// `node:http` receiver inside this script that answers 200 at once on keep-alive
// connections and records each arrival's wall-clock time.
//
// 1. dispatcher alone: starts the callback-dispatcher (CALLBACK_URL_ALLOWLIST=127.0.0.1),
//    registers one prompt deployment as a webhook target (secret sealed as the apps seal
//    it), then adds jobs to the BullMQ queue `callbacks` as a producer does (job id = the
//    delivery id):
//    - a warm-up burst (not reported);
//    - a burst of N jobs added while the queue is paused, then released at once:
//      deliveries/s from the first to the last arrival;
//    - steady rates (jobs added at a fixed rate with run_ended_at = the enqueue time):
//      arrival − enqueue p50/p95/p99, and whether the dispatcher keeps up.
//    Every delivery must arrive exactly once (by webhook-id), with both signatures valid.
// 2. the whole stack: fake provider, catalog, invocation, gateway and callback-dispatcher;
//    a workspace, a catalog with a fake model and a prompt deployment made with the CLI;
//    then webhook triggers at steady rates. For each callback: arrival − the run's
//    ended_at (from GET /v1/public/requests/{id}), and arrival − the trigger's 202.
//    The BullMQ job times (prompt-runs and callbacks queues) split the path into steps.
// Around each measured run it reads /proc for the CPU each process used (bench-lib) and
// the machine's steal time (CPU the hypervisor gave to other guests).
// Markdown and a JSON summary on stdout (JSON alone with --json), progress on stderr.
// Refuses to start while other Waggle apps or benchmarks run (they share NATS queue
// groups and the cores) unless --allow-others. Exits 1 when a delivery was missing,
// duplicated or badly signed, a callback contradicted the run's status in the ledger, a
// trigger was refused, a job failed, or a process did not start or did not exit 0 after
// SIGTERM. Missing an aim is reported, not an error.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  exitUnlessBuilt,
  benchCatalogYaml,
  benchPromptYaml,
  ROOT,
  EXIT_TIMEOUT_MS,
  cpuBetween,
  cpuMsPerRequest,
  cpuSnapshot,
  fmt,
  freePort,
  httpRequest,
  loadAverage,
  log,
  machine,
  otherWaggleProcesses,
  percentile,
  restoreShippedCatalog,
  runNode,
  settle,
  sleep,
  startProcess,
  stopProcess,
  waitFor,
  waitForGatewayToSee,
  distEntries,
} from './bench-lib.mjs';

const require = createRequire(import.meta.url);
const { Queue } = require('bullmq');
const Redis = require('ioredis');
const pg = require('pg');
const { Webhook } = require('standardwebhooks');

const ENTRIES = distEntries('migrate', 'cli', 'fake', 'catalog', 'invocation', 'gateway', 'dispatcher', 'webhooks');
const MODEL = 'fake-chat';
const QUESTION = 'hello there';
const DEPLOYMENT = 'bench-callbacks';
const AIMS = { deliveriesPerSecond: 500, endToArrivalP50Ms: 50 };
const DISPATCHER = 'callback-dispatcher';
/** What CallbackQueue.enqueue (the producers) passes with each job. */
const RETENTION = { removeOnComplete: { age: 24 * 3600, count: 50_000 }, removeOnFail: { age: 30 * 24 * 3600 } };
const WARMUP_JOBS = 500;
const STACK_WARMUP = { rate: 10, seconds: 3 };
const ARRIVAL_TIMEOUT_MS = 120_000;
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

function usage(message) {
  if (message) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write(
    'usage: node scripts/bench/callbacks.mjs [--mode all|dispatcher|stack] [--jobs N] [--rates 250,500] [--steady-seconds N]\n' +
      '         [--stack-rates 20,50,100] [--stack-seconds N] [--concurrency N] [--redis-url URL] [--database-url URL]\n' +
      '         [--latency-ms N] [--allow-others] [--json] [--json-file PATH] [--log-dir DIR] [--cpu-prof DIR]\n',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = {
    mode: 'all',
    jobs: 5_000,
    rates: [250, 500],
    steadySeconds: 10,
    stackRates: [20, 50, 100],
    stackSeconds: 10,
    concurrency: null,
    redisUrl: 'redis://127.0.0.1:6379/12',
    databaseUrl: 'postgres://postgres@127.0.0.1:5432/waggle_bench',
    latencyMs: 20,
    allowOthers: false,
    json: false,
    jsonFile: null,
    logDir: null,
    cpuProf: null,
  };
  const integers = {
    '--jobs': ['jobs', 1],
    '--steady-seconds': ['steadySeconds', 1],
    '--stack-seconds': ['stackSeconds', 1],
    '--latency-ms': ['latencyMs', 0],
    '--concurrency': ['concurrency', 1],
  };
  const lists = { '--rates': 'rates', '--stack-rates': 'stackRates' };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    const value = () => {
      const v = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (v === undefined) usage(`${name} needs a value`);
      return v;
    };
    if (arg === '--json') options.json = true;
    else if (arg === '--allow-others') options.allowOthers = true;
    else if (arg === '--help' || arg === '-h') usage();
    else if (name === '--mode') {
      options.mode = value();
      if (!['all', 'dispatcher', 'stack'].includes(options.mode)) usage('--mode must be all, dispatcher or stack');
    } else if (Object.hasOwn(integers, name)) {
      const [key, min] = integers[name];
      options[key] = Number(value());
      if (!Number.isInteger(options[key]) || options[key] < min) usage(`${name} must be a whole number, at least ${min}`);
    } else if (Object.hasOwn(lists, name)) {
      const raw = value();
      options[lists[name]] = raw === '' ? [] : raw.split(',').map(Number);
      if (options[lists[name]].some((rate) => !Number.isFinite(rate) || rate <= 0))
        usage(`${name} must be positive numbers separated by commas`);
    } else if (name === '--redis-url') options.redisUrl = value();
    else if (name === '--database-url') options.databaseUrl = value();
    else if (name === '--json-file') options.jsonFile = value();
    else if (name === '--log-dir') options.logDir = value();
    else if (name === '--cpu-prof') options.cpuProf = value();
    else usage(`unknown argument ${arg}`);
  }
  const db = Number(new URL(options.redisUrl).pathname.slice(1) || 0);
  if (!Number.isInteger(db) || db < 1)
    usage('--redis-url must name a Redis database other than 0 (it is flushed), e.g. redis://127.0.0.1:6379/12');
  return options;
}

// ---------------------------------------------------------------------------------------
// Small helpers

/** Nearest-rank p50/p95/p99, mean, min and max of unsorted values (ms). */
function dist(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((sum, value) => sum + value, 0) / (sorted.length || 1),
    min: sorted[0] ?? NaN,
    max: sorted.at(-1) ?? NaN,
  };
}

/** Calls `fire(n)` so that `rate` × elapsed seconds calls have been asked for at every moment, for `seconds`. */
async function paced(rate, seconds, fire) {
  const total = Math.max(1, Math.round(rate * seconds));
  const started = performance.now();
  let fired = 0;
  while (fired < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
    if (due > fired) {
      fire(due - fired);
      fired = due;
    }
    await sleep(1);
  }
  return { total, seconds: (performance.now() - started) / 1000 };
}

async function mapLimit(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await fn(items[index], index);
      }
    }),
  );
  return results;
}

/** CPU ms of NATS, Redis and PostgreSQL separately between two cpuSnapshot()s (bench-lib lumps them as infra). */
function infraByCommand(before, after) {
  const totals = {};
  for (const [pid, ticks] of after.infra) {
    let comm = 'ended';
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      // a PostgreSQL backend that ended since
    }
    totals[comm] = (totals[comm] ?? 0) + (Math.max(0, ticks - (before.infra.get(pid) ?? 0)) * 1000) / CLOCK_TICKS;
  }
  return totals;
}

/** The machine's CPU time by kind (ticks) from /proc/stat: steal is time the hypervisor gave to other guests. */
function statTicks() {
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { user: user + nice, system, idle: idle + iowait, irq: irq + softirq, steal };
}

/** cpuSnapshot (bench-lib) plus the machine's steal and interrupt time. */
function snapshot(procs) {
  return { ...cpuSnapshot(procs), stat: statTicks() };
}

/** CPU summary of one measured run: cores over the window and CPU ms per delivery. */
function cpuSummary(before, after, names, deliveries) {
  const cpu = cpuBetween(before, after);
  const kinds = Object.fromEntries(
    Object.keys(after.stat).map((kind) => [kind, (after.stat[kind] - before.stat[kind]) / CLOCK_TICKS / cpu.seconds]),
  );
  const perDelivery = cpuMsPerRequest(cpu, names, deliveries);
  const infraMs = infraByCommand(before, after);
  return {
    windowS: cpu.seconds,
    cores: {
      ...Object.fromEntries(names.map((name) => [name, cpu[name]])),
      bench: cpu.bench,
      infra: cpu.infra,
      other: cpu.other,
      busy: cpu.busy,
    },
    // Of "busy": user, system, interrupts (softirq: loopback TCP) and steal (taken by the hypervisor).
    machineCores: kinds,
    msPerDelivery: {
      ...perDelivery,
      infraByCommand: Object.fromEntries(Object.entries(infraMs).map(([comm, ms]) => [comm, ms / (deliveries || 1)])),
    },
  };
}

function wallFromIso(iso) {
  return iso ? Date.parse(iso) : NaN;
}

/** With --log-dir, the tail of a process's output (bench-lib keeps the last 8 KB). */
function keepLog(options, proc, part) {
  if (!options.logDir) return;
  mkdirSync(options.logDir, { recursive: true });
  writeFileSync(join(options.logDir, `${part}-${proc.name}.log`), proc.output());
}

// ---------------------------------------------------------------------------------------
// The receiver: answers 200 at once, keeps every arrival.

function startReceiver() {
  const arrivals = new Map(); // webhook-id → first arrival
  const counts = new Map(); // webhook-id → how many arrived
  const state = { connections: 0, requests: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const atPerf = performance.now();
      const at = Date.now();
      state.requests += 1;
      const id = String(req.headers['webhook-id'] ?? '');
      counts.set(id, (counts.get(id) ?? 0) + 1);
      if (!arrivals.has(id)) {
        arrivals.set(id, {
          at,
          atPerf,
          path: req.url,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: {
            'x-service-signature': req.headers['x-service-signature'],
            'webhook-id': req.headers['webhook-id'],
            'webhook-timestamp': req.headers['webhook-timestamp'],
            'webhook-signature': req.headers['webhook-signature'],
          },
        });
      }
      res.writeHead(200, { 'content-length': '0' });
      res.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', () => (state.connections += 1));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        origin: `http://127.0.0.1:${port}`,
        arrivals,
        counts,
        state,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Waits until every id has arrived (or the time-out); answers the ids still missing. */
async function waitArrivals(receiver, ids, timeoutMs, procs = []) {
  const started = performance.now();
  let missing = ids.filter((id) => !receiver.arrivals.has(id));
  while (missing.length > 0 && performance.now() - started < timeoutMs) {
    const gone = procs.find((proc) => proc.exit);
    if (gone)
      throw new Error(
        `${gone.name} exited (code ${gone.exit.code}, signal ${gone.exit.signal}) while callbacks were awaited\n${gone.output()}`,
      );
    await sleep(20);
    missing = missing.filter((id) => !receiver.arrivals.has(id));
  }
  return missing;
}

/** Both signatures of a callback, checked as a receiver would; null when both verify. */
function signatureProblem(arrival, secret) {
  const expected = `sha256=${createHmac('sha256', secret).update(arrival.body, 'utf8').digest('hex')}`;
  if (
    !String(arrival.headers['x-service-signature'] ?? '')
      .split(', ')
      .includes(expected)
  )
    return 'X-Service-Signature does not verify';
  try {
    new Webhook(secret).verify(arrival.body, {
      'webhook-id': String(arrival.headers['webhook-id']),
      'webhook-timestamp': String(arrival.headers['webhook-timestamp']),
      'webhook-signature': String(arrival.headers['webhook-signature']),
    });
  } catch (error) {
    return `webhook-signature: ${error.message}`;
  }
  return null;
}

/** Exactly-once and signature checks of one run's deliveries. */
function checkDeliveries(receiver, ids, secret, check) {
  let duplicates = 0;
  let missing = 0;
  let badSignatures = 0;
  let badBodies = 0;
  const problems = new Set();
  for (const id of ids) {
    const count = receiver.counts.get(id) ?? 0;
    if (count === 0) missing += 1;
    if (count > 1) duplicates += count - 1;
    const arrival = receiver.arrivals.get(id);
    if (!arrival) continue;
    const signature = signatureProblem(arrival, secret);
    if (signature) {
      badSignatures += 1;
      problems.add(signature);
    }
    const body = check?.(arrival, id);
    if (body) {
      badBodies += 1;
      problems.add(body);
    }
  }
  return { expected: ids.length, missing, duplicates, badSignatures, badBodies, problems: [...problems].slice(0, 5) };
}

/** BullMQ's times of jobs (ms since the epoch): added (timestamp), taken by a worker (processedOn), finished. */
async function jobTimes(queue, ids) {
  const times = new Map();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const jobs = await Promise.all(chunk.map((id) => queue.getJob(id)));
    chunk.forEach((id, index) => {
      const job = jobs[index];
      if (job)
        times.set(id, {
          timestamp: job.timestamp,
          processedOn: job.processedOn,
          finishedOn: job.finishedOn,
          attemptsStarted: job.attemptsStarted,
        });
    });
  }
  return times;
}

async function waitJobsDone(queue, ids, timeoutMs, procs) {
  const started = performance.now();
  for (;;) {
    const counts = await queue.getJobCounts('completed', 'failed', 'active', 'wait', 'paused', 'delayed', 'prioritized');
    if (counts.completed + counts.failed >= ids.length) return counts;
    const gone = procs.find((proc) => proc.exit);
    if (gone) throw new Error(`${gone.name} exited while jobs were pending\n${gone.output()}`);
    if (performance.now() - started > timeoutMs) return counts;
    await sleep(25);
  }
}

// ---------------------------------------------------------------------------------------
// Part 1: the dispatcher alone

function callbackJob(target, receiverUrl, enqueuedAt) {
  const hex = randomBytes(16).toString('hex');
  const deliveryId = `msg_${hex}`;
  const requestId = `req_${hex}`;
  return {
    name: 'deliver',
    data: {
      delivery_id: deliveryId,
      workspace_id: target.workspaceId,
      request_id: requestId,
      event_type: 'prompt.completed',
      url: receiverUrl,
      body: { event_type: 'prompt.completed', request_id: requestId, data: { response: `Echo: ${QUESTION}`, usage: null, model: MODEL } },
      owner: { kind: 'prompt_deployment', id: target.ownerId },
      run_ended_at: new Date(enqueuedAt).toISOString(),
    },
    opts: { ...RETENTION, jobId: deliveryId },
  };
}

const bodyCheck = (arrival, id) => {
  try {
    const body = JSON.parse(arrival.body);
    return body.request_id === `req_${id.slice(4)}` && body.event_type === 'prompt.completed'
      ? null
      : `unexpected body ${arrival.body.slice(0, 200)}`;
  } catch {
    return `body is not JSON: ${arrival.body.slice(0, 200)}`;
  }
};

async function dispatcherPart(ctx) {
  const { env, options, receiver, procs, failures, webhooks } = ctx;
  const port = await freePort();
  const appEnv = { ...env, PORT: String(port), CALLBACK_URL_ALLOWLIST: '127.0.0.1' };
  if (options.concurrency) appEnv.CALLBACK_CONCURRENCY = String(options.concurrency);
  const nodeArgs = options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] : [];
  const dispatcher = startProcess(DISPATCHER, ENTRIES.dispatcher, appEnv, nodeArgs);
  procs.push(dispatcher);
  log(`dispatcher alone: started ${DISPATCHER} (pid ${dispatcher.pid}, :${port}), receiver at ${receiver.origin}`);
  await waitFor(dispatcher, 'ready', async () => (await httpRequest(port, '/health/ready')).status === 200);

  // One registered prompt deployment, exactly as its owner service would publish it.
  const sealer = webhooks.SecretSealer.fromEnv({ WEBHOOK_SECRET_KEY: env.WEBHOOK_SECRET_KEY, NODE_ENV: env.NODE_ENV || 'development' });
  const secret = webhooks.generateWebhookSecret();
  const target = { ownerId: randomUUID(), workspaceId: randomUUID() };
  await new webhooks.WebhookRegistry(ctx.redis).put({
    kind: 'prompt_deployment',
    id: target.ownerId,
    workspace_id: target.workspaceId,
    secrets: [{ digest: webhooks.digestWebhookSecret(secret), sealed: sealer.seal(secret), expires_at: null }],
  });
  const queue = new Queue('callbacks', { connection: ctx.queueConnection });
  ctx.closers.push(() => queue.close());
  const url = `${receiver.origin}/hooks/dispatcher`;
  const accounted = [{ name: DISPATCHER, pid: dispatcher.pid }];
  const quiet = async () => {
    const cores = await settle(accounted, { maxCores: 0.05, windowMs: 1_000 });
    if (cores >= 0.05) log(`warning: the dispatcher still used ${fmt(cores)} cores after waiting 10 s for it to go quiet`);
  };

  const jobsDone = async (ids, label) => {
    const counts = await waitJobsDone(queue, ids, ARRIVAL_TIMEOUT_MS, procs);
    if (counts.completed < ids.length || counts.failed > 0)
      failures.push(`${label}: ${ids.length} jobs, BullMQ counts ${JSON.stringify(counts)}`);
    return counts;
  };

  /** A burst: N jobs added while the queue is paused, released at once. */
  const burst = async (count, label) => {
    await quiet();
    await queue.clean(0, 0, 'completed');
    await queue.pause();
    const ids = [];
    const enqueuedAt = Date.now();
    for (let i = 0; i < count; i += 1_000) {
      const chunk = Array.from({ length: Math.min(1_000, count - i) }, () => callbackJob(target, url, enqueuedAt));
      for (const job of chunk) ids.push(job.opts.jobId);
      await queue.addBulk(chunk);
    }
    const before = snapshot(accounted);
    const releasedPerf = performance.now();
    const releasedAt = Date.now();
    await queue.resume();
    const missing = await waitArrivals(receiver, ids, ARRIVAL_TIMEOUT_MS, procs);
    const counts = await jobsDone(ids, label);
    const after = snapshot(accounted);
    const arrivals = ids.map((id) => receiver.arrivals.get(id)).filter(Boolean);
    const firstPerf = Math.min(...arrivals.map((a) => a.atPerf));
    const lastPerf = Math.max(...arrivals.map((a) => a.atPerf));
    const times = await jobTimes(queue, ids);
    const lastFinished = Math.max(...[...times.values()].map((t) => t.finishedOn ?? 0));
    const check = checkDeliveries(receiver, ids, secret, bodyCheck);
    if (missing.length) failures.push(`${label}: ${missing.length} of ${count} callbacks never arrived`);
    if (check.duplicates || check.badSignatures || check.badBodies)
      failures.push(
        `${label}: ${check.duplicates} duplicates, ${check.badSignatures} bad signatures, ${check.badBodies} bad bodies (${check.problems.join('; ')})`,
      );
    const result = {
      jobs: count,
      delivered: arrivals.length,
      deliveriesPerSecond: arrivals.length > 1 ? ((arrivals.length - 1) * 1000) / (lastPerf - firstPerf) : NaN,
      deliveriesPerSecondFromRelease: (arrivals.length * 1000) / (lastPerf - releasedPerf),
      firstArrivalAfterReleaseMs: firstPerf - releasedPerf,
      lastArrivalAfterReleaseMs: lastPerf - releasedPerf,
      recordedPerSecond: (count * 1000) / (lastFinished - releasedAt),
      queueCounts: counts,
      check,
      cpu: cpuSummary(before, after, [DISPATCHER], count),
    };
    log(
      `${label}: ${count} jobs, ${fmt(result.deliveriesPerSecond, 0)} deliveries/s first → last arrival (${fmt(result.deliveriesPerSecondFromRelease, 0)}/s from release), ` +
        `dispatcher ${fmt(result.cpu.msPerDelivery[DISPATCHER], 3)} ms CPU per delivery, ${check.missing} missing, ${check.duplicates} duplicates, ${check.badSignatures} bad signatures`,
    );
    return result;
  };

  /** Jobs added at a fixed rate; arrival − enqueue per delivery. */
  const steady = async (rate, seconds) => {
    const label = `steady ${rate}/s`;
    await quiet();
    await queue.clean(0, 0, 'completed');
    const sent = new Map(); // id → { at, perf }
    const adds = [];
    const before = snapshot(accounted);
    const pace = await paced(rate, seconds, (n) => {
      const perf = performance.now();
      const at = Date.now();
      const batch = Array.from({ length: n }, () => callbackJob(target, url, at));
      for (const job of batch) sent.set(job.opts.jobId, { at, perf });
      adds.push(queue.addBulk(batch));
    });
    await Promise.all(adds);
    const ids = [...sent.keys()];
    const missing = await waitArrivals(receiver, ids, ARRIVAL_TIMEOUT_MS, procs);
    const counts = await jobsDone(ids, label);
    const after = snapshot(accounted);
    const times = await jobTimes(queue, ids);
    const check = checkDeliveries(receiver, ids, secret, bodyCheck);
    if (missing.length) failures.push(`${label}: ${missing.length} of ${ids.length} callbacks never arrived`);
    if (check.duplicates || check.badSignatures || check.badBodies)
      failures.push(
        `${label}: ${check.duplicates} duplicates, ${check.badSignatures} bad signatures, ${check.badBodies} bad bodies (${check.problems.join('; ')})`,
      );

    const latency = [];
    const pickup = [];
    const pickupToArrival = [];
    const arrivalToFinished = [];
    const early = [];
    const late = [];
    const sentPerfs = [...sent.values()].map((s) => s.perf);
    const firstSent = Math.min(...sentPerfs);
    const lastSent = Math.max(...sentPerfs);
    let lastArrival = -Infinity;
    let firstArrival = Infinity;
    for (const [id, s] of sent) {
      const arrival = receiver.arrivals.get(id);
      if (!arrival) continue;
      const ms = arrival.atPerf - s.perf;
      latency.push(ms);
      if (s.perf - firstSent < 2_000) early.push(ms);
      if (lastSent - s.perf < 2_000) late.push(ms);
      lastArrival = Math.max(lastArrival, arrival.atPerf);
      firstArrival = Math.min(firstArrival, arrival.atPerf);
      const t = times.get(id);
      if (t?.processedOn) {
        pickup.push(t.processedOn - s.at);
        pickupToArrival.push(arrival.at - t.processedOn);
        if (t.finishedOn) arrivalToFinished.push(t.finishedOn - arrival.at);
      }
    }
    const offeredPerSecond = ((ids.length - 1) * 1000) / (lastSent - firstSent);
    const deliveredPerSecond = ((latency.length - 1) * 1000) / (lastArrival - firstArrival);
    const drainMs = lastArrival - lastSent;
    const result = {
      rate,
      seconds,
      jobs: ids.length,
      delivered: latency.length,
      pacedSeconds: pace.seconds,
      offeredPerSecond,
      deliveredPerSecond,
      drainMs,
      keepsUp: latency.length === ids.length && deliveredPerSecond >= 0.97 * offeredPerSecond && drainMs < 1_000,
      latencyMs: dist(latency),
      firstTwoSecondsMs: dist(early),
      lastTwoSecondsMs: dist(late),
      steps: { enqueueToPickupMs: dist(pickup), pickupToArrivalMs: dist(pickupToArrival), arrivalToRecordedMs: dist(arrivalToFinished) },
      queueCounts: counts,
      check,
      cpu: cpuSummary(before, after, [DISPATCHER], ids.length),
    };
    log(
      `${label}: offered ${fmt(offeredPerSecond, 0)}/s, delivered ${fmt(deliveredPerSecond, 0)}/s, arrival − enqueue p50 ${fmt(result.latencyMs.p50, 1)} ms, ` +
        `p95 ${fmt(result.latencyMs.p95, 1)} ms, p99 ${fmt(result.latencyMs.p99, 1)} ms, drain ${fmt(drainMs, 0)} ms, keeps up: ${result.keepsUp ? 'yes' : 'NO'}`,
    );
    return result;
  };

  // Emptied at the start so each run inserts into the same small table (only in a bench database).
  log(`dispatcher alone: warm-up burst of ${WARMUP_JOBS} (not reported)`);
  const warmup = await burst(WARMUP_JOBS, 'warm-up');
  log(`dispatcher alone: burst of ${options.jobs} jobs`);
  const burstResult = await burst(options.jobs, 'burst');
  const steadyResults = [];
  for (const rate of options.rates) {
    log(`dispatcher alone: ${rate} jobs/s for ${options.steadySeconds} s`);
    steadyResults.push(await steady(rate, options.steadySeconds));
  }
  const stop = await stopProcess(dispatcher);
  keepLog(options, dispatcher, 'dispatcher-alone');
  procs.splice(procs.indexOf(dispatcher), 1);
  ctx.stops.push({ process: `${DISPATCHER} (dispatcher alone)`, ...stop });
  return {
    concurrency: options.concurrency ?? 100,
    receiverConnections: receiver.state.connections,
    warmup: { jobs: warmup.jobs, deliveriesPerSecond: warmup.deliveriesPerSecond },
    burst: burstResult,
    steady: steadyResults,
  };
}

// ---------------------------------------------------------------------------------------
// Part 2: the whole stack

/** One request on a keep-alive agent; status, parsed JSON body and wall/perf times of sending and of the answer's end. */
function jsonRequest(agent, port, path, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const sentPerf = performance.now();
    const sentAt = Date.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        timeout: 30_000,
        headers: payload ? { ...headers, 'content-type': 'application/json', 'content-length': payload.length } : headers,
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.once('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, json, text, sentAt, sentPerf, doneAt: Date.now(), donePerf: performance.now() });
        });
        res.once('error', (error) => resolve({ status: 0, text: error.message, sentAt, sentPerf }));
      },
    );
    req.once('timeout', () => req.destroy(new Error('timed out')));
    req.once('error', (error) => resolve({ status: 0, text: error.message, sentAt, sentPerf }));
    req.end(payload);
  });
}

async function stackPart(ctx) {
  const { env, options, receiver, procs, failures } = ctx;
  const fakePort = await freePort();
  const fake = startProcess('fake-provider', ENTRIES.fake, {
    ...env,
    FAKE_PROVIDER_PORT: String(fakePort),
    FAKE_PROVIDER_HOST: '127.0.0.1',
    FAKE_PROVIDER_LATENCY_MS: String(options.latencyMs),
  });
  procs.push(fake);
  const apps = {};
  for (const name of ['catalog', 'invocation', 'gateway', DISPATCHER]) {
    const port = await freePort();
    const appEnv = { ...env, PORT: String(port) };
    if (name === 'invocation')
      Object.assign(appEnv, { FAKE_BASE_URL: `http://127.0.0.1:${fakePort}/v1`, FAKE_API_KEY: 'bench', PROVIDER_MAX_RETRIES: '0' });
    if (name === 'gateway' || name === DISPATCHER) appEnv.CALLBACK_URL_ALLOWLIST = '127.0.0.1';
    if (name === DISPATCHER && options.concurrency) appEnv.CALLBACK_CONCURRENCY = String(options.concurrency);
    const proc = startProcess(name, name === DISPATCHER ? ENTRIES.dispatcher : ENTRIES[name], appEnv);
    proc.port = port;
    apps[name] = proc;
    procs.push(proc);
  }
  log(
    `whole stack: started fake-provider (pid ${fake.pid}, :${fakePort}), ${Object.values(apps)
      .map((p) => `${p.name} (pid ${p.pid}, :${p.port})`)
      .join(', ')}`,
  );
  await waitFor(fake, 'listening', async () => (await httpRequest(fakePort, '/_fake/requests')).status === 200);
  for (const proc of Object.values(apps))
    await waitFor(proc, 'ready', async () => (await httpRequest(proc.port, '/health/ready')).status === 200);
  await waitForGatewayToSee(apps.gateway, ['catalog', 'invocation']);

  const catalogFile = join(ctx.tmp, 'models.yaml');
  writeFileSync(catalogFile, benchCatalogYaml('2099.9.2', MODEL));
  log('whole stack: loading the shipped catalog plus fake-chat (cli catalog load --force)');
  ctx.catalogLoaded = true;
  const loaded = JSON.parse(runNode(ENTRIES.cli, ['catalog', 'load', '--file', catalogFile, '--force', '--json'], env, 'catalog load'));
  if (!loaded.loaded) throw new Error(`catalog load did not load: ${JSON.stringify(loaded)}`);
  log('whole stack: creating a workspace and applying the bench prompt deployment (cli workspace create, apply)');
  const created = JSON.parse(
    runNode(ENTRIES.cli, ['workspace', 'create', '--name', 'bench-callbacks', '--plan', 'enterprise', '--json'], env, 'workspace create'),
  );
  const promptFile = join(ctx.tmp, 'prompts.yaml');
  writeFileSync(promptFile, benchPromptYaml(DEPLOYMENT, MODEL));
  const applied = JSON.parse(
    runNode(ENTRIES.cli, ['apply', '-f', promptFile, '--workspace', created.workspace_id, '--json'], env, 'apply'),
  );
  const deployment = applied.find((d) => d.deployment === DEPLOYMENT);
  const variantId = deployment?.variants?.find((v) => v.name === 'default')?.variant_id;
  if (!deployment || !variantId || !deployment.webhook_secret)
    throw new Error(`apply printed no deployment/variant/secret: ${JSON.stringify(applied)}`);
  const secret = deployment.webhook_secret;
  const triggerPath = `/v1/prompt/webhooks/${deployment.prompt_endpoint_id}/variants/${variantId}`;
  const callbackUrl = `${receiver.origin}/hooks/stack`;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  ctx.closers.push(() => agent.destroy());
  const trigger = () =>
    jsonRequest(agent, apps.gateway.port, triggerPath, {
      method: 'POST',
      headers: { 'x-service-webhook-secret': secret },
      body: { inputs: { question: QUESTION }, metadata: { bench: 'callbacks' }, async: { callback_url: callbackUrl } },
    });
  // The invocation service publishes the target to Redis on apply; wait until the gateway accepts.
  await waitFor(apps.gateway, 'accepting the first trigger', async () => (await trigger()).status === 202);

  const promptRuns = new Queue('prompt-runs', { connection: ctx.queueConnection });
  const callbacks = new Queue('callbacks', { connection: ctx.queueConnection });
  ctx.closers.push(
    () => promptRuns.close(),
    () => callbacks.close(),
  );
  const accounted = Object.values(apps)
    .concat(fake)
    .map(({ name, pid }) => ({ name, pid }));
  const names = accounted.map((p) => p.name);
  const auth = { authorization: `Bearer ${created.api_key}` };

  const stackRun = async (rate, seconds, label, measure = true) => {
    const cores = await settle(accounted, { maxCores: 0.1, windowMs: 1_000 });
    if (cores >= 0.1) log(`warning: the stack still used ${fmt(cores)} cores after waiting 10 s for it to go quiet`);
    const pending = [];
    const before = snapshot(accounted);
    await paced(rate, seconds, (n) => {
      for (let i = 0; i < n; i += 1) pending.push(trigger());
    });
    const answers = await Promise.all(pending);
    const accepted = answers.filter((a) => a.status === 202 && typeof a.json?.request_id === 'string');
    if (accepted.length < answers.length) {
      const refused = answers.filter((a) => !accepted.includes(a));
      failures.push(
        `${label}: ${refused.length} of ${answers.length} triggers not accepted (${[...new Set(refused.map((a) => `${a.status} ${a.text.slice(0, 120)}`))].slice(0, 3).join('; ')})`,
      );
    }
    const ids = accepted.map((a) => `msg_${a.json.request_id.slice(4)}`);
    const missing = await waitArrivals(receiver, ids, ARRIVAL_TIMEOUT_MS, procs);
    const after = snapshot(accounted);
    if (missing.length) failures.push(`${label}: ${missing.length} of ${ids.length} callbacks never arrived`);
    if (!measure) return null;

    // A callback is well-formed when it is prompt.completed with the answer, or prompt.failed
    // with an error; whether it tells the truth is checked against the ledger below.
    const check = checkDeliveries(receiver, ids, secret, (arrival, id) => {
      const body = JSON.parse(arrival.body);
      if (body.request_id !== `req_${id.slice(4)}`) return `wrong request_id in ${arrival.body.slice(0, 200)}`;
      if (body.event_type === 'prompt.completed')
        return body.data?.response === `Echo: ${QUESTION}` ? null : `unexpected answer ${arrival.body.slice(0, 200)}`;
      return body.event_type === 'prompt.failed' && typeof body.data?.error_code === 'string'
        ? null
        : `unexpected body ${arrival.body.slice(0, 200)}`;
    });
    if (check.duplicates || check.badSignatures || check.badBodies)
      failures.push(
        `${label}: ${check.duplicates} duplicates, ${check.badSignatures} bad signatures, ${check.badBodies} bad bodies (${check.problems.join('; ')})`,
      );
    // Looked up after the run, so the look-ups do not load the measured window.
    const lookups = await mapLimit(accepted, 8, (a) =>
      jsonRequest(agent, apps.gateway.port, `/v1/public/requests/${a.json.request_id}`, { headers: auth }),
    );
    const runTimes = await jobTimes(
      promptRuns,
      accepted.map((a) => a.json.request_id),
    );
    const callbackTimes = await jobTimes(callbacks, ids);
    const series = {
      endToArrival: [],
      acceptedToArrival: [],
      sentToArrival: [],
      triggerAnswer: [],
      // Runs taken once by invocation and announced truthfully: the path without the retries.
      endToArrivalClean: [],
      acceptedToArrivalClean: [],
      acceptedToRunPickup: [],
      runPickupToStart: [],
      runStartToEnd: [],
      endToCallbackEnqueued: [],
      callbackEnqueuedToPickup: [],
      callbackPickupToArrival: [],
    };
    let lookupFailures = 0;
    let retriedRuns = 0;
    const outcomes = {}; // "callback event (error_code: error) / ledger status" → count
    const untrueOutcomes = {}; // the same, where the callback contradicts the ledger
    accepted.forEach((a, index) => {
      const requestId = a.json.request_id;
      const id = ids[index];
      const arrival = receiver.arrivals.get(id);
      const lookup = lookups[index];
      const run = runTimes.get(requestId);
      if ((run?.attemptsStarted ?? 1) > 1) retriedRuns += 1;
      series.triggerAnswer.push(a.donePerf - a.sentPerf);
      if (!arrival) return;
      series.acceptedToArrival.push(arrival.at - a.doneAt);
      series.sentToArrival.push(arrival.at - a.sentAt);
      if (lookup.status !== 200 || !lookup.json?.ended_at) {
        lookupFailures += 1;
        return;
      }
      const body = JSON.parse(arrival.body);
      const outcome = `${body.event_type}${body.data?.error_code ? ` (${body.data.error_code}: ${body.data.error})` : ''} / ledger ${lookup.json.status}`;
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      const endedAt = wallFromIso(lookup.json.ended_at);
      const startedAt = wallFromIso(lookup.json.started_at);
      series.endToArrival.push(arrival.at - endedAt);
      const truthful = body.event_type === `prompt.${lookup.json.status}`;
      if (!truthful) untrueOutcomes[outcome] = (untrueOutcomes[outcome] ?? 0) + 1;
      if (!truthful || !run?.processedOn || run.attemptsStarted > 1) return;
      series.endToArrivalClean.push(arrival.at - endedAt);
      series.acceptedToArrivalClean.push(arrival.at - a.doneAt);
      series.runStartToEnd.push(endedAt - startedAt);
      series.acceptedToRunPickup.push(run.processedOn - run.timestamp);
      series.runPickupToStart.push(startedAt - run.processedOn);
      const cb = callbackTimes.get(id);
      if (cb?.processedOn) {
        series.endToCallbackEnqueued.push(cb.timestamp - endedAt);
        series.callbackEnqueuedToPickup.push(cb.processedOn - cb.timestamp);
        series.callbackPickupToArrival.push(arrival.at - cb.processedOn);
      }
    });
    const untrue = Object.entries(untrueOutcomes);
    const untrueCount = untrue.reduce((sum, [, count]) => sum + count, 0);
    if (untrueCount)
      failures.push(
        `${label}: ${untrueCount} of ${accepted.length} callbacks do not match the run's status in the ledger: ${untrue.map(([o, c]) => `${c}× ${o}`).join('; ')}`,
      );
    if (lookupFailures) failures.push(`${label}: ${lookupFailures} GET /v1/public/requests look-ups gave no ended_at`);
    const result = {
      rate,
      seconds,
      triggers: answers.length,
      accepted: accepted.length,
      delivered: ids.length - missing.length,
      check,
      outcomes,
      untrueCallbacks: untrueCount,
      retriedRuns,
      cleanCallbacks: series.endToArrivalClean.length,
      ...Object.fromEntries(Object.entries(series).map(([key, values]) => [`${key}Ms`, dist(values)])),
      cpu: cpuSummary(before, after, names, accepted.length),
    };
    log(
      `${label}: ${accepted.length} triggers, end → arrival p50 ${fmt(result.endToArrivalMs.p50, 1)} ms, p95 ${fmt(result.endToArrivalMs.p95, 1)} ms, p99 ${fmt(result.endToArrivalMs.p99, 1)} ms; ` +
        `202 → arrival p50 ${fmt(result.acceptedToArrivalMs.p50, 1)} ms; ${check.missing} missing, ${check.duplicates} duplicates, ${check.badSignatures} bad signatures, ` +
        `${untrueCount} contradicting the ledger, ${retriedRuns} runs taken more than once`,
    );
    return result;
  };

  log(`whole stack: warm-up, ${STACK_WARMUP.rate} triggers/s for ${STACK_WARMUP.seconds} s (not reported)`);
  await stackRun(STACK_WARMUP.rate, STACK_WARMUP.seconds, 'stack warm-up', false);
  const runs = [];
  for (const rate of options.stackRates) {
    log(`whole stack: ${rate} triggers/s for ${options.stackSeconds} s`);
    runs.push(await stackRun(rate, options.stackSeconds, `stack ${rate}/s`));
  }
  return { fakeLatencyMs: options.latencyMs, runs, processes: names };
}

// ---------------------------------------------------------------------------------------
// Report

const ms = (d, digits = 1) => `${fmt(d.p50, digits)} / ${fmt(d.p95, digits)} / ${fmt(d.p99, digits)}`;
const met = (ok) => (ok ? 'met' : '**not met**');

function markdown(report) {
  const lines = [];
  const d = report.dispatcher;
  if (d) {
    const b = d.burst;
    const bm = b.cpu.msPerDelivery;
    const infra = (m) =>
      Object.entries(m.infraByCommand)
        .map(([comm, value]) => `${comm} ${fmt(value, 3)}`)
        .join(', ');
    lines.push(
      `### Dispatcher alone (CALLBACK_CONCURRENCY ${d.concurrency})`,
      '',
      `Burst: ${b.jobs} jobs added while the queue was paused, then released.`,
      '',
      '| deliveries/s first → last arrival | from release | recorded (job finished)/s | first arrival after release (ms) | missing / duplicates / bad signatures | dispatcher CPU ms per delivery (JS thread) | infra ms per delivery | bench ms per delivery | cores: dispatcher / infra / bench / busy (steal) |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| ${fmt(b.deliveriesPerSecond, 0)} | ${fmt(b.deliveriesPerSecondFromRelease, 0)} | ${fmt(b.recordedPerSecond, 0)} | ${fmt(b.firstArrivalAfterReleaseMs, 1)} | ${b.check.missing} / ${b.check.duplicates} / ${b.check.badSignatures} | ${fmt(bm[DISPATCHER], 3)} (${fmt(bm.mainThreads[DISPATCHER], 3)}) | ${fmt(bm.infra, 3)} (${infra(bm)}) | ${fmt(bm.bench, 3)} | ${fmt(b.cpu.cores[DISPATCHER])} / ${fmt(b.cpu.cores.infra)} / ${fmt(b.cpu.cores.bench)} / ${fmt(b.cpu.cores.busy)} (${fmt(b.cpu.machineCores.steal)}) |`,
      '',
      'Steady rates, jobs added at a fixed rate (ms, p50 / p95 / p99):',
      '',
      '| offered/s | delivered/s | arrival − enqueue | max | first 2 s p50 | last 2 s p50 | enqueue → worker took it | took → arrival | arrival → job finished | drain after last enqueue (ms) | keeps up | dispatcher CPU ms per delivery (JS thread) | cores: dispatcher / infra / bench / busy (steal) |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |',
    );
    for (const s of d.steady) {
      const m = s.cpu.msPerDelivery;
      lines.push(
        `| ${fmt(s.offeredPerSecond, 0)} | ${fmt(s.deliveredPerSecond, 0)} | ${ms(s.latencyMs)} | ${fmt(s.latencyMs.max, 1)} | ${fmt(s.firstTwoSecondsMs.p50, 1)} | ${fmt(s.lastTwoSecondsMs.p50, 1)} | ${ms(s.steps.enqueueToPickupMs, 0)} | ${ms(s.steps.pickupToArrivalMs, 0)} | ${ms(s.steps.arrivalToRecordedMs, 0)} | ${fmt(s.drainMs, 0)} | ${s.keepsUp ? 'yes' : '**no**'} | ${fmt(m[DISPATCHER], 3)} (${fmt(m.mainThreads[DISPATCHER], 3)}) | ${fmt(s.cpu.cores[DISPATCHER])} / ${fmt(s.cpu.cores.infra)} / ${fmt(s.cpu.cores.bench)} / ${fmt(s.cpu.cores.busy)} (${fmt(s.cpu.machineCores.steal)}) |`,
      );
    }
    lines.push('');
  }
  const s = report.stack;
  if (s) {
    lines.push(
      `### Whole stack (fake provider latency ${s.fakeLatencyMs} ms)`,
      '',
      'Per callback, ms, p50 / p95 / p99 (max):',
      '',
      '| triggers/s | accepted / delivered | trigger 202 answer | **run end → arrival** | 202 → arrival | missing / dup / bad sig | callbacks contradicting the ledger | runs taken more than once | clean runs: end → arrival | clean runs: 202 → arrival |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const r of s.runs) {
      lines.push(
        `| ${r.rate} | ${r.accepted} / ${r.delivered} | ${ms(r.triggerAnswerMs)} | ${ms(r.endToArrivalMs)} (${fmt(r.endToArrivalMs.max, 0)}) | ${ms(r.acceptedToArrivalMs)} (${fmt(r.acceptedToArrivalMs.max, 0)}) | ${r.check.missing} / ${r.check.duplicates} / ${r.check.badSignatures} | ${r.untrueCallbacks} | ${r.retriedRuns} | ${ms(r.endToArrivalCleanMs)} (n=${r.cleanCallbacks}) | ${ms(r.acceptedToArrivalCleanMs)} |`,
      );
    }
    lines.push(
      '',
      'Where the time goes in the clean runs (taken once, callback matching the ledger), p50 / p95 / p99 ms (BullMQ job times and the ledger; whole milliseconds):',
      '',
      '| triggers/s | 202 → invocation took the run | took → run started | run (started → ended) | ended → callback job added | added → dispatcher took it | took → arrival |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const r of s.runs) {
      lines.push(
        `| ${r.rate} | ${ms(r.acceptedToRunPickupMs, 0)} | ${ms(r.runPickupToStartMs, 0)} | ${ms(r.runStartToEndMs, 0)} | ${ms(r.endToCallbackEnqueuedMs, 0)} | ${ms(r.callbackEnqueuedToPickupMs, 0)} | ${ms(r.callbackPickupToArrivalMs, 0)} |`,
      );
    }
    lines.push(
      '',
      `CPU in cores during each run (the machine has ${report.machine.cores}; steal is time the hypervisor gave to other guests) and ms per callback:`,
      '',
      `| triggers/s | ${s.processes.join(' | ')} | bench | infra | busy | steal |`,
      `| ---: |${' ---: |'.repeat(s.processes.length + 4)}`,
    );
    for (const r of s.runs) {
      const c = r.cpu.cores;
      const m = r.cpu.msPerDelivery;
      lines.push(
        `| ${r.rate} | ${s.processes.map((name) => `${fmt(c[name])} (${fmt(m[name], 2)} ms)`).join(' | ')} | ${fmt(c.bench)} | ${fmt(c.infra)} (${fmt(m.infra, 2)} ms) | ${fmt(c.busy)} | ${fmt(r.cpu.machineCores.steal)} |`,
      );
    }
    lines.push('');
  }
  lines.push('| aim | measured | |', '| --- | ---: | --- |');
  if (d) {
    lines.push(
      `| ≥ ${AIMS.deliveriesPerSecond} deliveries/s (burst, first → last arrival) | ${fmt(d.burst.deliveriesPerSecond, 0)}/s | ${met(d.burst.deliveriesPerSecond >= AIMS.deliveriesPerSecond)} |`,
    );
    for (const st of d.steady)
      lines.push(
        `| keeps up with ${st.rate} jobs/s | delivered ${fmt(st.deliveredPerSecond, 0)}/s, drain ${fmt(st.drainMs, 0)} ms | ${st.keepsUp ? 'yes' : '**no**'} |`,
      );
  }
  if (s) {
    for (const r of s.runs)
      lines.push(
        `| run end → arrival p50 < ${AIMS.endToArrivalP50Ms} ms at ${r.rate} triggers/s | ${fmt(r.endToArrivalMs.p50, 1)} ms | ${met(r.endToArrivalMs.p50 < AIMS.endToArrivalP50Ms)} |`,
      );
  }
  lines.push(
    '',
    `Node ${report.machine.node}, ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.date}; load average at start ${report.machine.loadAverage}, at end ${report.machine.loadAverageAtEnd}. ` +
      `Redis ${report.redisUrl}, PostgreSQL ${report.database}.`,
  );
  if (report.otherProcesses.length)
    lines.push(
      '',
      `Warning: other Waggle apps or benchmarks were running: ${report.otherProcesses.map((o) => `${o.what} (pid ${o.pid})`).join(', ')}.`,
    );
  if (report.failures.length) lines.push('', 'Failures:', ...report.failures.map((failure) => `- ${failure}`));
  return lines.join('\n');
}

/** The headline figures, for the JSON summary after the tables. */
function summary(report) {
  return {
    machine: {
      cores: report.machine.cores,
      loadAverage: report.machine.loadAverage,
      loadAverageAtEnd: report.machine.loadAverageAtEnd,
      date: report.machine.date,
    },
    dispatcher: report.dispatcher && {
      burst: {
        jobs: report.dispatcher.burst.jobs,
        deliveriesPerSecond: Math.round(report.dispatcher.burst.deliveriesPerSecond),
        dispatcherCpuMsPerDelivery: Number(report.dispatcher.burst.cpu.msPerDelivery[DISPATCHER].toFixed(3)),
        stealCores: Number(report.dispatcher.burst.cpu.machineCores.steal.toFixed(2)),
      },
      steady: report.dispatcher.steady.map((s) => ({
        rate: s.rate,
        deliveredPerSecond: Math.round(s.deliveredPerSecond),
        latencyMs: { p50: s.latencyMs.p50, p95: s.latencyMs.p95, p99: s.latencyMs.p99 },
        keepsUp: s.keepsUp,
        dispatcherCpuMsPerDelivery: Number(s.cpu.msPerDelivery[DISPATCHER].toFixed(3)),
        stealCores: Number(s.cpu.machineCores.steal.toFixed(2)),
      })),
    },
    stack: report.stack?.runs.map((r) => ({
      rate: r.rate,
      callbacks: r.delivered,
      endToArrivalMs: { p50: r.endToArrivalMs.p50, p95: r.endToArrivalMs.p95, p99: r.endToArrivalMs.p99 },
      acceptedToArrivalMs: { p50: r.acceptedToArrivalMs.p50, p95: r.acceptedToArrivalMs.p95, p99: r.acceptedToArrivalMs.p99 },
      cleanEndToArrivalMs: { p50: r.endToArrivalCleanMs.p50, p95: r.endToArrivalCleanMs.p95, p99: r.endToArrivalCleanMs.p99 },
      untrueCallbacks: r.untrueCallbacks,
      retriedRuns: r.retriedRuns,
      stealCores: Number(r.cpu.machineCores.steal.toFixed(2)),
    })),
    aims: report.aimsMet,
    failures: report.failures.length,
  };
}

// ---------------------------------------------------------------------------------------

async function main() {
  const options = parseArgs(process.argv.slice(2));
  exitUnlessBuilt(ENTRIES);
  const info = machine();
  const others = otherWaggleProcesses();
  if (others.length) {
    const list = others.map((o) => `${o.what} pid ${o.pid}`).join(', ');
    if (!options.allowOthers) {
      log(
        `REFUSING TO RUN: other Waggle apps or benchmarks are running (${list}). Apps share NATS queue groups with this bench (another catalog, invocation or dispatcher would answer some of its requests) and every process competes for the cores. Stop them, or pass --allow-others to run anyway.`,
      );
      process.exit(1);
    }
    log(`WARNING: other Waggle apps or benchmarks are running (${list}); the figures are not comparable`);
  }
  log(`load average ${info.loadAverage} (${info.cores} cores)`);
  const webhooks = require(join(ROOT, ENTRIES.webhooks));
  const env = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: options.databaseUrl, REDIS_URL: options.redisUrl };
  const databaseName = new URL(options.databaseUrl).pathname.slice(1);
  log(`running migrations on ${databaseName} (node ${ENTRIES.migrate})`);
  runNode(ENTRIES.migrate, [], env, 'migrations');

  const ctx = {
    env,
    options,
    webhooks,
    procs: [],
    failures: [],
    stops: [],
    closers: [],
    catalogLoaded: false,
    tmp: mkdtempSync(join(tmpdir(), 'waggle-bench-callbacks-')),
  };
  ctx.redis = new Redis(options.redisUrl, { lazyConnect: false });
  ctx.queueConnection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  let cleaning = null;
  const cleanup = () => {
    cleaning ??= (async () => {
      if (ctx.catalogLoaded) {
        ctx.catalogLoaded = !restoreShippedCatalog(ENTRIES.cli, env, ctx.failures);
      }
      const stops = await Promise.all(ctx.procs.map(async (proc) => ({ process: proc.name, ...(await stopProcess(proc)) })));
      for (const proc of ctx.procs) keepLog(options, proc, 'stack');
      for (const close of ctx.closers.reverse())
        await Promise.resolve()
          .then(close)
          .catch(() => undefined);
      await ctx.receiver?.close();
      await ctx.redis.flushdb().catch(() => undefined);
      await ctx.redis.quit().catch(() => ctx.redis.disconnect());
      await ctx.queueConnection.quit().catch(() => ctx.queueConnection.disconnect());
      rmSync(ctx.tmp, { recursive: true, force: true });
      return [...ctx.stops, ...stops];
    })();
    return cleaning;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      log(`${signal}: stopping the processes`);
      void cleanup().then(() => {
        for (const failure of ctx.failures) log(`FAILED: ${failure}`);
        process.exit(130);
      });
    });
  }

  let report;
  try {
    await ctx.redis.flushdb();
    if (/bench/.test(databaseName)) {
      const client = new pg.Client({ connectionString: options.databaseUrl });
      await client.connect();
      await client.query('TRUNCATE "callback_dispatcher"."deliveries", "callback_dispatcher"."delivery_attempts"');
      await client.end();
      log(`emptied the delivery log of ${databaseName}`);
    }
    ctx.receiver = await startReceiver();
    const dispatcher = options.mode === 'stack' ? null : await dispatcherPart(ctx);
    const stack = options.mode === 'dispatcher' || options.stackRates.length === 0 ? null : await stackPart(ctx);
    report = {
      options: { ...options, json: undefined, jsonFile: undefined },
      machine: info,
      redisUrl: options.redisUrl,
      database: databaseName,
      otherProcesses: others,
      dispatcher,
      stack,
      aims: AIMS,
      failures: ctx.failures,
    };
  } catch (error) {
    ctx.failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    const stops = await cleanup();
    for (const stop of stops) {
      if (stop.alreadyExited)
        ctx.failures.push(`${stop.process} exited on its own during the bench (code ${stop.code}, signal ${stop.signal})`);
      else if (stop.killed) ctx.failures.push(`${stop.process} still running ${EXIT_TIMEOUT_MS / 1000} s after SIGTERM (killed)`);
      else if (stop.code !== 0) ctx.failures.push(`${stop.process} exited with ${stop.code ?? stop.signal} after SIGTERM`);
    }
    if (report) report.stops = stops;
  }
  if (!report) {
    for (const failure of ctx.failures) log(`FAILED: ${failure}`);
    process.exit(1);
  }
  report.machine.loadAverageAtEnd = loadAverage();
  const othersAtEnd = otherWaggleProcesses();
  if (othersAtEnd.length) report.otherProcessesAtEnd = othersAtEnd;
  report.aimsMet = {
    deliveriesPerSecond: report.dispatcher ? report.dispatcher.burst.deliveriesPerSecond >= AIMS.deliveriesPerSecond : null,
    endToArrivalP50: report.stack
      ? Object.fromEntries(report.stack.runs.map((r) => [`${r.rate}/s`, r.endToArrivalMs.p50 < AIMS.endToArrivalP50Ms]))
      : null,
  };
  if (options.jsonFile) writeFileSync(options.jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${markdown(report)}\n\n\`\`\`json\n${JSON.stringify(summary(report), null, 2)}\n\`\`\`\n`);
  if (othersAtEnd.length)
    log(`warning: other Waggle apps or benchmarks were running at the end: ${othersAtEnd.map((o) => `${o.what} pid ${o.pid}`).join(', ')}`);
  for (const failure of ctx.failures) log(`FAILED: ${failure}`);
  process.exit(ctx.failures.length ? 1 : 0);
}

main().catch((error) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
