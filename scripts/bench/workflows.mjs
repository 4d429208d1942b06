#!/usr/bin/env node
// Workflows: async accepts per second, run end → callback, and the engine's overhead per step
// against the bare model call (docs/benchmarks/workflows.md).
//
//   npm run build && npm run bench:workflows [-- --connections N] [--duration N] [--rate N] [--rate-seconds N]
//        [--requests N] [--steps 1,10] [--workflow-concurrency N] [--redis-url URL] [--database-url URL]
//        [--allow-others] [--json]
//
// Everything runs against the built dist/, on free loopback ports, with its own Redis database
// (default redis://127.0.0.1:6379/13, flushed at the start and the end, passed to every process
// as REDIS_URL) and its own PostgreSQL database (default waggle_bench, migrated first). It starts
// the fake model provider (no latency), catalog, invocation, gateway and callback-dispatcher
// (CALLBACK_URL_ALLOWLIST=127.0.0.1 on gateway and dispatcher), loads the shipped catalog plus
// one fake chat model, creates an enterprise workspace with its workflow concurrency raised to
// --workflow-concurrency (1000, so the cap does not shape the figures) and applies three
// workflows: one `template` step, and K sequential `prompt` steps for each K of --steps. The
// callbacks go to a `node:http` receiver inside this script that answers 200 at once and records
// each arrival's wall-clock time. Then, each after a warm-up:
// 1. accepts: async invokes of the template workflow, --connections in flight at once (this
//    script's own loop on keep-alive connections), for --duration s: accepted per second at the
//    gateway, accept latency p50/p99, the share answered `queued`; then every run's callback is
//    awaited (the drain: runs completed per second from the first accept to the last callback).
// 2. run end → callback: async invokes of the template workflow at --rate per second for
//    --rate-seconds; per run, the callback's arrival minus the run's ended_at
//    (GET /v1/workflow_runs/{id}), split with the BullMQ job times of the callbacks queue.
// 3. engine overhead: the K-step workflow invoked sync, sequentially, --requests times, and the
//    fake provider's chat completion called directly with the same message as many times;
//    overhead per step = (sync p50 − K × direct p50) / K; from the step records
//    (GET /v1/private/workflow_runs/{id}/steps): mean step duration − direct latency, and the gap
//    between steps (next started_at − previous ended_at).
// 1c. the bare-stack leg (scripts/bench/bare-stack.mjs, a child process with a `node:http` server):
//    per run only an INSERT of a row, a BullMQ `add`, the job taken by a BullMQ Worker and an
//    UPDATE of the row, in its own table (bench_bare_runs in the bench database, dropped at the
//    end) and queue (bench-bare-runs), driven as phase 1: accepted per second (row inserted and
//    job added) and completed per second (job taken and row updated); the engine's phase-1
//    figures as a share of them. Issue 39's async aims are 1,000 accepts/s and 500 completions/s
//    or 60 % of these, whichever is lower.
// Around each measured phase it reads /proc for the CPU each process used (bench-lib).
// Markdown on stdout (JSON with --json), progress on stderr. Refuses to start while other Waggle
// apps or benchmarks run (they share NATS queue groups and the cores) unless --allow-others.
// Exits 1 when a request failed, a callback is missing, duplicated or badly signed, or a
// process did not start or did not exit 0 after SIGTERM.
import { createHmac } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import {
  benchCatalogYaml,
  cpuBetween,
  cpuMsPerRequest,
  cpuSnapshot,
  EXIT_TIMEOUT_MS,
  exitUnlessBuilt,
  fmt,
  freePort,
  httpRequest,
  infraProcesses,
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
const { Client } = require('pg');
const Redis = require('ioredis');
const { Webhook } = require('standardwebhooks');

const ENTRIES = distEntries('migrate', 'cli', 'fake', 'catalog', 'invocation', 'gateway', 'dispatcher');
const MODEL = 'fake-flow-bench';
const QUESTION = 'What is the capital of France?';
const TEMPLATE = 'bench-template';
const TEMPLATE_OUTPUT = 'hello from the bench';
const DISPATCHER = 'callback-dispatcher';
const ARRIVAL_TIMEOUT_MS = 180_000;
const WARMUP = { acceptSeconds: 2, rate: 10, rateSeconds: 2, syncRequests: 20 };
const promptDeployment = (k) => `bench-prompt-${k}`;
/**
 * The bare-stack leg (scripts/bench/bare-stack.mjs): its own table in the bench database and its
 * own queue in the bench's Redis database; the worker's concurrency and lock are invocation's
 * defaults (WORKFLOW_RUN_CONCURRENCY, WORKFLOW_LEASE_MS).
 */
const BARE = {
  entry: 'scripts/bench/bare-stack.mjs',
  table: 'bench_bare_runs',
  queue: 'bench-bare-runs',
  workerConcurrency: 50,
  lockMs: 30_000,
};
/** Issue 39: the engine's async figures are aimed at the absolute aim or this share of the bare stack's, whichever is lower. */
const BARE_SHARE_AIM = 0.6;

function usage(message) {
  if (message) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write(
    'usage: node scripts/bench/workflows.mjs [--connections N] [--duration N] [--paused-duration N] [--rate N] [--rate-seconds N] [--requests N]\n' +
      '         [--steps 1,10] [--workflow-concurrency N] [--redis-url URL] [--database-url URL] [--allow-others] [--json]\n',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = {
    connections: 32,
    duration: 10,
    pausedDuration: 5,
    rate: 20,
    rateSeconds: 10,
    requests: 200,
    steps: [1, 10],
    workflowConcurrency: 1000,
    redisUrl: 'redis://127.0.0.1:6379/13',
    databaseUrl: 'postgres://postgres@127.0.0.1:5432/waggle_bench',
    allowOthers: false,
    json: false,
  };
  const integers = {
    '--connections': 'connections',
    '--duration': 'duration',
    '--paused-duration': 'pausedDuration',
    '--rate': 'rate',
    '--rate-seconds': 'rateSeconds',
    '--requests': 'requests',
    '--workflow-concurrency': 'workflowConcurrency',
  };
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
    else if (Object.hasOwn(integers, name)) {
      options[integers[name]] = Number(value());
      if (!Number.isInteger(options[integers[name]]) || options[integers[name]] < 1) usage(`${name} must be a whole number, at least 1`);
    } else if (name === '--steps') {
      options.steps = value().split(',').map(Number);
      if (options.steps.length === 0 || options.steps.some((k) => !Number.isInteger(k) || k < 1 || k > 50))
        usage('--steps must be whole numbers from 1 to 50 separated by commas');
    } else if (name === '--redis-url') options.redisUrl = value();
    else if (name === '--database-url') options.databaseUrl = value();
    else usage(`unknown argument ${arg}`);
  }
  const db = Number(new URL(options.redisUrl).pathname.slice(1) || 0);
  if (!Number.isInteger(db) || db < 1)
    usage('--redis-url must name a Redis database other than 0 (it is flushed), e.g. redis://127.0.0.1:6379/13');
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

/** One request on a keep-alive agent: status, parsed JSON body, and the wall/perf times of sending and of the answer's end. */
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
        timeout: 60_000,
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
          const donePerf = performance.now();
          resolve({ status: res.statusCode ?? 0, json, text, sentAt, sentPerf, doneAt: Date.now(), donePerf, ms: donePerf - sentPerf });
        });
        res.once('error', (error) => resolve({ status: 0, text: error.message, sentAt, sentPerf, ms: NaN }));
      },
    );
    req.once('timeout', () => req.destroy(new Error('timed out')));
    req.once('error', (error) => resolve({ status: 0, text: error.message, sentAt, sentPerf, ms: NaN }));
    req.end(payload);
  });
}

const wall = (iso) => (iso ? Date.parse(iso) : NaN);
const describe = (answer) => `${answer.status} ${String(answer.text).slice(0, 160)}`;

/** The first few distinct problems of refused answers, for a failure line. */
function refusals(answers) {
  return [...new Set(answers.map(describe))].slice(0, 3).join('; ');
}

// ---------------------------------------------------------------------------------------
// The receiver: answers 200 at once, keeps every arrival by webhook-id.

function startReceiver() {
  const arrivals = new Map();
  const counts = new Map();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const id = String(req.headers['webhook-id'] ?? '');
      counts.set(id, (counts.get(id) ?? 0) + 1);
      if (!arrivals.has(id))
        arrivals.set(id, {
          at,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: {
            'x-service-signature': req.headers['x-service-signature'],
            'webhook-id': req.headers['webhook-id'],
            'webhook-timestamp': req.headers['webhook-timestamp'],
            'webhook-signature': req.headers['webhook-signature'],
          },
        });
      res.writeHead(200, { 'content-length': '0' });
      res.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/hooks`,
        arrivals,
        counts,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The callback's webhook-id for a run (deliveryIdFor in @waggle/webhooks). */
const deliveryId = (requestId) => `msg_${requestId.replace(/^req_/, '')}`;

/** Waits until every delivery id has arrived (or the time-out); answers the ids still missing. */
async function waitArrivals(receiver, ids, procs) {
  const started = performance.now();
  let missing = ids.filter((id) => !receiver.arrivals.has(id));
  while (missing.length > 0 && performance.now() - started < ARRIVAL_TIMEOUT_MS) {
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
  if (!arrival.headers['webhook-signature'] && !arrival.headers['x-service-signature']) return 'unsigned';
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

/** Exactly-once, signature and body checks of the callbacks of `requestIds`; failures go to `failures`. */
function checkCallbacks(receiver, requestIds, secret, label, failures) {
  let missing = 0;
  let duplicates = 0;
  let badSignatures = 0;
  let badBodies = 0;
  const problems = new Set();
  for (const requestId of requestIds) {
    const id = deliveryId(requestId);
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
    let body = null;
    try {
      body = JSON.parse(arrival.body);
    } catch {
      // checked below
    }
    if (body?.event_type !== 'workflow.completed' || body.request_id !== requestId || body.data?.output !== TEMPLATE_OUTPUT) {
      badBodies += 1;
      problems.add(`unexpected body ${arrival.body.slice(0, 200)}`);
    }
  }
  if (missing || duplicates || badSignatures || badBodies)
    failures.push(
      `${label}: ${missing} missing, ${duplicates} duplicate, ${badSignatures} badly signed, ${badBodies} unexpected callbacks of ${requestIds.length} (${[...problems].slice(0, 3).join('; ')})`,
    );
  return { expected: requestIds.length, missing, duplicates, badSignatures, badBodies };
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

/** CPU of each accounted process over a phase: cores, and ms per unit of work (run, request). */
function cpuOf(before, after, names, units) {
  const cpu = cpuBetween(before, after);
  return {
    seconds: cpu.seconds,
    cores: { ...Object.fromEntries(names.map((name) => [name, cpu[name]])), bench: cpu.bench, infra: cpu.infra, busy: cpu.busy },
    msPerUnit: cpuMsPerRequest(cpu, names, units),
  };
}

// ---------------------------------------------------------------------------------------
// The workflows the bench applies

function workflowsYaml(stepCounts) {
  const prompt = (k) => ({
    deployment: promptDeployment(k),
    variants: [
      {
        name: 'default',
        output: `{{ s${k}.output }}`,
        steps: Array.from({ length: k }, (_, i) => ({
          id: `s${i + 1}`,
          type: 'prompt',
          model: MODEL,
          messages: [{ role: 'user', content: QUESTION }],
        })),
      },
    ],
  });
  return YAML.stringify({
    workflows: [
      {
        deployment: TEMPLATE,
        variants: [{ name: 'default', output: '{{ t.output }}', steps: [{ id: 't', type: 'template', text: TEMPLATE_OUTPUT }] }],
      },
      ...stepCounts.map(prompt),
    ],
  });
}

// ---------------------------------------------------------------------------------------
// The phases

/** `connections` workers each sending `send()` again as soon as its answer is in, for `seconds`: the answers and the window. */
async function closedLoop(connections, seconds, send) {
  const answers = [];
  const startedPerf = performance.now();
  const startedAt = Date.now();
  const until = startedPerf + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) answers.push(await send());
    }),
  );
  return { answers, startedPerf, startedAt, windowS: (performance.now() - startedPerf) / 1000 };
}

/** Phase 1: async invokes, `connections` in flight, for `seconds`; then the drain of their callbacks. */
async function acceptPhase(ctx, seconds, { measure = true, paused = false } = {}) {
  const { stack, auth, receiver, failures, accounted, names } = ctx;
  const agent = new Agent({ keepAlive: true, maxSockets: ctx.options.connections });
  const body = { deployment: TEMPLATE, variant: 'default', async: { enabled: true, callback_url: receiver.url } };
  // Paused, the workers take no run during the window: what admission alone costs and sustains.
  if (paused) await ctx.queues.runs.pause();
  const before = cpuSnapshot(accounted);
  const { answers, startedPerf, startedAt, windowS } = await closedLoop(ctx.options.connections, seconds, () =>
    jsonRequest(agent, stack.gateway.port, '/v1/workflow/invoke', { method: 'POST', headers: auth, body }),
  );
  const after = cpuSnapshot(accounted);
  agent.destroy();
  if (paused) await ctx.queues.runs.resume();
  const label = `accepts${paused ? ' (run queue paused)' : ''}${measure ? '' : ' warm-up'}`;
  const accepted = answers.filter(
    (a) => a.status === 200 && typeof a.json?.request_id === 'string' && ['running', 'queued'].includes(a.json.run_status),
  );
  if (accepted.length < answers.length)
    failures.push(
      `${label}: ${answers.length - accepted.length} of ${answers.length} invokes not accepted (${refusals(answers.filter((a) => !accepted.includes(a)))})`,
    );
  const secret = accepted[0]?.json.webhook_secret;
  const requestIds = accepted.map((a) => a.json.request_id);
  log(`${label}: ${accepted.length} accepted in ${fmt(windowS, 1)} s; awaiting their callbacks`);
  const missing = await waitArrivals(receiver, requestIds.map(deliveryId), ctx.procs);
  const drainedPerf = performance.now();
  const check = checkCallbacks(receiver, requestIds, secret, label, failures);
  if (missing.length) log(`${label}: ${missing.length} callbacks had not arrived after ${ARRIVAL_TIMEOUT_MS / 1000} s`);
  if (!measure) return null;
  const lastArrival = Math.max(...requestIds.map((id) => receiver.arrivals.get(deliveryId(id))?.at ?? -Infinity));
  const result = {
    paused,
    connections: ctx.options.connections,
    seconds: windowS,
    invokes: answers.length,
    accepted: accepted.length,
    acceptedPerSecond: accepted.length / windowS,
    queued: accepted.filter((a) => a.json.run_status === 'queued').length,
    acceptLatencyMs: dist(accepted.map((a) => a.ms)),
    check,
    // From the first invoke sent to the last callback received: what the engine and the dispatcher sustained.
    completedPerSecond: accepted.length / ((lastArrival - startedAt) / 1000),
    lastCallbackAfterWindowMs: lastArrival - (startedAt + windowS * 1000),
    drainWaitS: (drainedPerf - startedPerf) / 1000 - windowS,
    cpu: cpuOf(before, after, names, accepted.length),
  };
  result.queuedShare = result.accepted ? result.queued / result.accepted : NaN;
  log(
    `${label}: ${fmt(result.acceptedPerSecond, 0)}/s at ${result.connections} in flight, accept p50 ${fmt(result.acceptLatencyMs.p50, 1)} ms, p99 ${fmt(result.acceptLatencyMs.p99, 1)} ms, ` +
      `${result.queued} queued; runs completed ${fmt(result.completedPerSecond, 0)}/s (first invoke → last callback)`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------
// The bare-stack leg

/** One statement (or several, `;`-separated, without parameters) on the bench database, on a connection of its own. */
async function benchSql(databaseUrl, text) {
  const client = new Client({ connectionString: databaseUrl, application_name: 'bench-workflows' });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

const createBareTable = (databaseUrl) =>
  benchSql(
    databaseUrl,
    `DROP TABLE IF EXISTS ${BARE.table}; CREATE TABLE ${BARE.table} (id uuid PRIMARY KEY, status text NOT NULL, inputs jsonb NOT NULL, ` +
      'created_at timestamptz NOT NULL DEFAULT now(), ended_at timestamptz)',
  );
const dropBareTable = (databaseUrl) => benchSql(databaseUrl, `DROP TABLE IF EXISTS ${BARE.table}`);

/** The bare stack as a child process on a free port, ready when its worker runs. */
async function startBare(ctx) {
  const port = await freePort();
  const proc = Object.assign(
    startProcess('bare-stack', BARE.entry, {
      PATH: process.env.PATH,
      DATABASE_URL: ctx.options.databaseUrl,
      REDIS_URL: ctx.options.redisUrl,
      BARE_PORT: String(port),
      BARE_TABLE: BARE.table,
      BARE_QUEUE: BARE.queue,
      BARE_WORKER_CONCURRENCY: String(BARE.workerConcurrency),
      BARE_LOCK_MS: String(BARE.lockMs),
    }),
    { port },
  );
  ctx.procs.push(proc);
  await waitFor(proc, 'ready', async () => (await httpRequest(port, '/health')).status === 200);
  return proc;
}

/** Stops the bare stack (it must exit 0 on SIGTERM) and forgets it. */
async function stopBare(ctx, proc) {
  const stop = await stopProcess(proc);
  ctx.procs.splice(ctx.procs.indexOf(proc), 1);
  if (stop.alreadyExited || stop.killed || stop.code !== 0)
    ctx.failures.push(`bare-stack did not exit 0 on SIGTERM (${JSON.stringify(stop)})`);
}

/**
 * The bare-stack leg, driven as phase 1: `connections` in flight for `seconds`, the same body, each
 * answered once its row is inserted and its job added; the worker takes the jobs meanwhile. Then
 * every job is awaited: completions per second from the first request to the last job completed.
 */
async function barePhase(ctx, bare, seconds, { measure = true } = {}) {
  const { failures } = ctx;
  const label = `bare stack${measure ? '' : ' warm-up'}`;
  const stats = async () => (await jsonRequest(undefined, bare.port, '/stats')).json;
  const base = await stats();
  const agent = new Agent({ keepAlive: true, maxSockets: ctx.options.connections });
  const body = { deployment: TEMPLATE, variant: 'default', async: { enabled: true, callback_url: ctx.receiver.url } };
  const accounted = [{ name: bare.name, pid: bare.pid }, ...ctx.infra];
  const names = accounted.map((p) => p.name);
  const before = cpuSnapshot(accounted);
  const { answers, startedAt, windowS } = await closedLoop(ctx.options.connections, seconds, () =>
    jsonRequest(agent, bare.port, '/runs', { method: 'POST', body }),
  );
  const after = cpuSnapshot(accounted);
  agent.destroy();
  const accepted = answers.filter((a) => a.status === 200 && typeof a.json?.request_id === 'string');
  if (accepted.length < answers.length)
    failures.push(
      `${label}: ${answers.length - accepted.length} of ${answers.length} requests not accepted (${refusals(answers.filter((a) => !accepted.includes(a)))})`,
    );
  log(`${label}: ${accepted.length} accepted in ${fmt(windowS, 1)} s; awaiting their jobs`);
  let now = await stats();
  const finished = () => now.completed - base.completed + (now.failed - base.failed);
  const waitStarted = performance.now();
  while (finished() < accepted.length && performance.now() - waitStarted < ARRIVAL_TIMEOUT_MS) {
    if (bare.exit)
      throw new Error(
        `bare-stack exited (code ${bare.exit.code}, signal ${bare.exit.signal}) while its jobs were awaited\n${bare.output()}`,
      );
    await sleep(20);
    now = await stats();
  }
  const completed = now.completed - base.completed;
  const problems = {
    missing: Math.max(0, accepted.length - finished()),
    failed: now.failed - base.failed,
    notUpdated: now.notUpdated - base.notUpdated,
  };
  // Every row ever accepted (warm-up included) must be completed exactly once: read after the window.
  const rows = (
    await benchSql(
      ctx.options.databaseUrl,
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'completed')::int AS done FROM ${BARE.table}`,
    )
  ).rows[0];
  ctx.bareAccepted = (ctx.bareAccepted ?? 0) + accepted.length;
  if (problems.missing || problems.failed || problems.notUpdated || rows.total !== ctx.bareAccepted || rows.done !== rows.total)
    failures.push(
      `${label}: ${problems.missing} jobs not completed, ${problems.failed} failed, ${problems.notUpdated} without their queued row; ` +
        `${rows.done} of ${rows.total} rows completed for ${ctx.bareAccepted} accepted`,
    );
  if (!measure) return null;
  const result = {
    connections: ctx.options.connections,
    workerConcurrency: BARE.workerConcurrency,
    seconds: windowS,
    requests: answers.length,
    accepted: accepted.length,
    acceptedPerSecond: accepted.length / windowS,
    acceptLatencyMs: dist(accepted.map((a) => a.ms)),
    completed,
    completedPerSecond: accepted.length / ((now.lastCompletedAt - startedAt) / 1000),
    lastCompletionAfterWindowMs: now.lastCompletedAt - (startedAt + windowS * 1000),
    problems,
    cpu: cpuOf(before, after, names, accepted.length),
  };
  log(
    `${label}: ${fmt(result.acceptedPerSecond, 0)}/s accepted at ${result.connections} in flight, accept p50 ${fmt(result.acceptLatencyMs.p50, 1)} ms, ` +
      `p99 ${fmt(result.acceptLatencyMs.p99, 1)} ms; ${fmt(result.completedPerSecond, 0)}/s completed (first request → last job completed)`,
  );
  return result;
}

/** Stops invocation (SIGTERM, it must exit 0) and starts it again with `extraEnv`, on the same port; CPU accounting follows the new pid. */
async function restartInvocation(ctx, extraEnv) {
  const old = ctx.stack.invocation;
  const stop = await stopProcess(old);
  if (stop.alreadyExited || stop.killed || stop.code !== 0)
    ctx.failures.push(`invocation did not exit 0 on SIGTERM before its restart (${JSON.stringify(stop)})`);
  const appEnv = { ...old.appEnv, ...extraEnv };
  const proc = Object.assign(startProcess('invocation', ENTRIES.invocation, appEnv), { port: old.port, appEnv });
  ctx.procs[ctx.procs.indexOf(old)] = proc;
  ctx.stack.invocation = proc;
  for (const list of [ctx.apps, ctx.accounted]) {
    const entry = list.find((p) => p.name === 'invocation');
    entry.pid = proc.pid;
  }
  await waitFor(proc, 'ready', async () => (await httpRequest(proc.port, '/health/ready')).status === 200);
  await waitForGatewayToSee(ctx.stack.gateway, ['invocation']);
}

/** Phase 2: async invokes at a steady rate; callback arrival − run ended_at per run. */
async function endToCallbackPhase(ctx, rate, seconds, { measure = true } = {}) {
  const { stack, auth, receiver, failures, accounted, names } = ctx;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const body = { deployment: TEMPLATE, variant: 'default', async: { enabled: true, callback_url: receiver.url } };
  const label = measure ? `${rate} runs/s` : `${rate} runs/s warm-up`;
  const pending = [];
  const before = cpuSnapshot(accounted);
  await paced(rate, seconds, (n) => {
    for (let i = 0; i < n; i += 1)
      pending.push(jsonRequest(agent, stack.gateway.port, '/v1/workflow/invoke', { method: 'POST', headers: auth, body }));
  });
  const answers = await Promise.all(pending);
  const accepted = answers.filter((a) => a.status === 200 && typeof a.json?.request_id === 'string');
  if (accepted.length < answers.length)
    failures.push(
      `${label}: ${answers.length - accepted.length} of ${answers.length} invokes not accepted (${refusals(answers.filter((a) => !accepted.includes(a)))})`,
    );
  const requestIds = accepted.map((a) => a.json.request_id);
  const missing = await waitArrivals(receiver, requestIds.map(deliveryId), ctx.procs);
  const after = cpuSnapshot(accounted);
  const check = checkCallbacks(receiver, requestIds, accepted[0]?.json.webhook_secret, label, failures);
  if (!measure) {
    agent.destroy();
    return null;
  }
  // Looked up after the phase, so the look-ups do not load the measured window.
  const runs = await mapLimit(requestIds, 8, (id) => jsonRequest(agent, stack.gateway.port, `/v1/workflow_runs/${id}`, { headers: auth }));
  agent.destroy();
  const runJobs = await jobTimes(ctx.queues.runs, requestIds);
  const callbackJobs = await jobTimes(ctx.queues.callbacks, requestIds.map(deliveryId));
  const series = {
    endToCallback: [],
    acceptToCallback: [],
    acceptToRunPickup: [],
    runStartToEnd: [],
    endToCallbackJob: [],
    callbackJobToPickup: [],
    callbackPickupToArrival: [],
  };
  let lookupFailures = 0;
  accepted.forEach((a, index) => {
    const requestId = requestIds[index];
    const arrival = receiver.arrivals.get(deliveryId(requestId));
    const run = runs[index].json?.workflow_run;
    if (!arrival) return;
    if (runs[index].status !== 200 || run?.run_status !== 'completed' || !run.ended_at) {
      lookupFailures += 1;
      return;
    }
    const endedAt = wall(run.ended_at);
    series.endToCallback.push(arrival.at - endedAt);
    series.acceptToCallback.push(arrival.at - a.doneAt);
    series.runStartToEnd.push(endedAt - wall(run.started_at));
    const job = runJobs.get(requestId);
    if (job?.processedOn) series.acceptToRunPickup.push(job.processedOn - job.timestamp);
    const cb = callbackJobs.get(deliveryId(requestId));
    if (cb?.processedOn) {
      series.endToCallbackJob.push(cb.timestamp - endedAt);
      series.callbackJobToPickup.push(cb.processedOn - cb.timestamp);
      series.callbackPickupToArrival.push(arrival.at - cb.processedOn);
    }
  });
  if (lookupFailures)
    failures.push(
      `${label}: ${lookupFailures} GET /v1/workflow_runs look-ups gave no completed run with ended_at (${refusals(runs.filter((r) => r.status !== 200).slice(0, 3))})`,
    );
  const result = {
    rate,
    seconds,
    invokes: answers.length,
    accepted: accepted.length,
    delivered: requestIds.length - missing.length,
    check,
    acceptLatencyMs: dist(accepted.map((a) => a.ms)),
    ...Object.fromEntries(Object.entries(series).map(([key, values]) => [`${key}Ms`, dist(values)])),
    cpu: cpuOf(before, after, names, accepted.length),
  };
  log(
    `${label}: ${accepted.length} runs, run end → callback p50 ${fmt(result.endToCallbackMs.p50, 1)} ms, p95 ${fmt(result.endToCallbackMs.p95, 1)} ms, p99 ${fmt(result.endToCallbackMs.p99, 1)} ms`,
  );
  return result;
}

/** `count` sequential POSTs on one keep-alive connection; `check` answers a problem or nothing. */
async function sequential(port, path, headers, body, count, check) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const answers = [];
  const problems = [];
  for (let i = 0; i < count; i += 1) {
    const answer = await jsonRequest(agent, port, path, { method: 'POST', headers, body });
    const problem = answer.status !== 200 ? describe(answer) : check(answer.json);
    if (problem) problems.push(problem);
    else answers.push(answer);
  }
  agent.destroy();
  return { answers, problems };
}

/** The bare model call: the fake provider's chat completion with the step's message, sequentially. */
async function directPhase(ctx, count) {
  return sequential(
    ctx.fakePort,
    '/v1/chat/completions',
    { authorization: 'Bearer bench' },
    { model: MODEL, messages: [{ role: 'user', content: QUESTION }] },
    count,
    (answer) =>
      answer?.choices?.[0]?.message?.content === `Echo: ${QUESTION}` ? null : `answered ${JSON.stringify(answer).slice(0, 160)}`,
  );
}

/** Phase 3, for one K: the K-step workflow invoked sync, sequentially; then its step records. */
async function syncPhase(ctx, k, count) {
  const { stack, auth, accounted, names, failures } = ctx;
  const before = cpuSnapshot(accounted);
  const { answers, problems } = await sequential(
    stack.gateway.port,
    '/v1/workflow/invoke',
    auth,
    { deployment: promptDeployment(k), variant: 'default' },
    count,
    (answer) =>
      answer?.run_status === 'completed' && answer.output === `Echo: ${QUESTION}`
        ? null
        : `answered ${JSON.stringify(answer).slice(0, 160)}`,
  );
  const after = cpuSnapshot(accounted);
  if (problems.length)
    failures.push(`sync K=${k}: ${problems.length} of ${count} invokes failed (${[...new Set(problems)].slice(0, 3).join('; ')})`);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const ids = answers.map((a) => a.json.request_id);
  const [stepAnswers, runAnswers] = await Promise.all([
    mapLimit(ids, 4, (id) => jsonRequest(agent, stack.gateway.port, `/v1/private/workflow_runs/${id}/steps`, { headers: auth })),
    mapLimit(ids, 4, (id) => jsonRequest(agent, stack.gateway.port, `/v1/workflow_runs/${id}`, { headers: auth })),
  ]);
  agent.destroy();
  const stepDurations = [];
  const gaps = [];
  const runStartToFirstStep = [];
  const lastStepToRunEnd = [];
  const runSpan = [];
  const outsideRun = [];
  let badRecords = 0;
  ids.forEach((id, index) => {
    const steps = stepAnswers[index].json?.steps;
    const run = runAnswers[index].json?.workflow_run;
    if (
      stepAnswers[index].status !== 200 ||
      runAnswers[index].status !== 200 ||
      !Array.isArray(steps) ||
      steps.length !== k ||
      steps.some((s) => s.status !== 'completed')
    ) {
      badRecords += 1;
      return;
    }
    for (const step of steps) stepDurations.push(step.duration_ms);
    for (let i = 1; i < steps.length; i += 1) gaps.push(wall(steps[i].started_at) - wall(steps[i - 1].ended_at));
    runStartToFirstStep.push(wall(steps[0].started_at) - wall(run.started_at));
    lastStepToRunEnd.push(wall(run.ended_at) - wall(steps.at(-1).ended_at));
    const span = wall(run.ended_at) - wall(run.started_at);
    runSpan.push(span);
    outsideRun.push(answers[index].ms - span);
  });
  if (badRecords) failures.push(`sync K=${k}: ${badRecords} runs without ${k} completed step records`);
  return {
    k,
    requests: count,
    latencyMs: dist(answers.map((a) => a.ms)),
    stepDurationMs: dist(stepDurations),
    gapMs: dist(gaps),
    runStartToFirstStepMs: dist(runStartToFirstStep),
    lastStepToRunEndMs: dist(lastStepToRunEnd),
    runSpanMs: dist(runSpan),
    outsideRunMs: dist(outsideRun),
    cpu: cpuOf(before, after, names, answers.length),
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
        `REFUSING TO RUN: other Waggle apps or benchmarks are running (${list}). Apps share NATS queue groups with this bench (another invocation or dispatcher would take some of its runs) and every process competes for the cores. Stop them, or pass --allow-others to run anyway.`,
      );
      process.exit(1);
    }
    log(`WARNING: other Waggle apps or benchmarks are running (${list}); the figures are not comparable`);
  }
  log(`load average ${info.loadAverage} (${info.cores} cores)`);
  const env = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: options.databaseUrl, REDIS_URL: options.redisUrl };
  const databaseName = new URL(options.databaseUrl).pathname.slice(1);
  log(`running migrations on ${databaseName} (node ${ENTRIES.migrate})`);
  runNode(ENTRIES.migrate, [], env, 'migrations');

  const ctx = {
    options,
    procs: [],
    failures: [],
    stops: [],
    closers: [],
    catalogLoaded: false,
    tmp: mkdtempSync(join(tmpdir(), 'waggle-bench-workflows-')),
  };
  const redis = new Redis(options.redisUrl);
  const queueConnection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  let cleaning = null;
  const cleanup = () => {
    cleaning ??= (async () => {
      if (ctx.catalogLoaded) {
        ctx.catalogLoaded = !restoreShippedCatalog(ENTRIES.cli, env, ctx.failures);
      }
      const stops = await Promise.all(ctx.procs.map(async (proc) => ({ process: proc.name, ...(await stopProcess(proc)) })));
      for (const close of ctx.closers.reverse())
        await Promise.resolve()
          .then(close)
          .catch(() => undefined);
      await ctx.receiver?.close();
      if (ctx.bareTableCreated)
        await dropBareTable(options.databaseUrl).catch((error) => ctx.failures.push(`dropping ${BARE.table}: ${error.message}`));
      await redis.flushdb().catch(() => undefined);
      await redis.quit().catch(() => redis.disconnect());
      await queueConnection.quit().catch(() => queueConnection.disconnect());
      rmSync(ctx.tmp, { recursive: true, force: true });
      return stops;
    })();
    return cleaning;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      log(`${signal}: stopping the processes`);
      void cleanup().then(() => process.exit(130));
    });
  }

  let report;
  try {
    await redis.flushdb();
    ctx.receiver = await startReceiver();
    ctx.fakePort = await freePort();
    const fake = startProcess('fake-provider', ENTRIES.fake, {
      ...env,
      FAKE_PROVIDER_PORT: String(ctx.fakePort),
      FAKE_PROVIDER_HOST: '127.0.0.1',
      FAKE_PROVIDER_LATENCY_MS: '0',
    });
    ctx.procs.push(fake);
    const stack = {};
    for (const name of ['catalog', 'invocation', 'gateway', DISPATCHER]) {
      const port = await freePort();
      const appEnv = { ...env, PORT: String(port) };
      if (name === 'invocation')
        Object.assign(appEnv, { FAKE_BASE_URL: `http://127.0.0.1:${ctx.fakePort}/v1`, FAKE_API_KEY: 'bench', PROVIDER_MAX_RETRIES: '0' });
      if (name === 'gateway' || name === DISPATCHER) appEnv.CALLBACK_URL_ALLOWLIST = '127.0.0.1';
      stack[name] = Object.assign(startProcess(name, name === DISPATCHER ? ENTRIES.dispatcher : ENTRIES[name], appEnv), { port, appEnv });
      ctx.procs.push(stack[name]);
    }
    ctx.stack = stack;
    log(
      `started fake-provider (pid ${fake.pid}, :${ctx.fakePort}), ${Object.values(stack)
        .map((p) => `${p.name} (pid ${p.pid}, :${p.port})`)
        .join(', ')}`,
    );
    await waitFor(fake, 'listening', async () => (await httpRequest(ctx.fakePort, '/_fake/requests')).status === 200);
    for (const proc of Object.values(stack))
      await waitFor(proc, 'ready', async () => (await httpRequest(proc.port, '/health/ready')).status === 200);
    await waitForGatewayToSee(stack.gateway, ['catalog', 'invocation']);

    const catalogFile = join(ctx.tmp, 'models.yaml');
    writeFileSync(catalogFile, benchCatalogYaml('2099.9.3', MODEL));
    log(`loading the shipped catalog plus ${MODEL} (cli catalog load --force)`);
    ctx.catalogLoaded = true;
    const loaded = JSON.parse(runNode(ENTRIES.cli, ['catalog', 'load', '--file', catalogFile, '--force', '--json'], env, 'catalog load'));
    if (!loaded.loaded) throw new Error(`catalog load did not load: ${JSON.stringify(loaded)}`);
    log(`creating an enterprise workspace (workflow concurrency ${options.workflowConcurrency}) and applying the bench workflows`);
    const created = JSON.parse(
      runNode(ENTRIES.cli, ['workspace', 'create', '--name', 'bench-workflows', '--plan', 'enterprise', '--json'], env, 'workspace create'),
    );
    runNode(
      ENTRIES.cli,
      ['workspace', 'set-limits', created.workspace_id, '--workflow-concurrency', String(options.workflowConcurrency), '--json'],
      env,
      'workspace set-limits',
    );
    const workflowFile = join(ctx.tmp, 'workflows.yaml');
    writeFileSync(workflowFile, workflowsYaml(options.steps));
    runNode(ENTRIES.cli, ['apply', '-f', workflowFile, '--workspace', created.workspace_id, '--json'], env, 'apply');
    ctx.auth = { authorization: `Bearer ${created.api_key}` };
    await waitFor(stack.gateway, 'answering a sync workflow invoke', async () => {
      const answer = await jsonRequest(undefined, stack.gateway.port, '/v1/workflow/invoke', {
        method: 'POST',
        headers: ctx.auth,
        body: { deployment: TEMPLATE, variant: 'default' },
      });
      return answer.status === 200 && answer.json?.output === TEMPLATE_OUTPUT;
    });

    ctx.queues = {
      runs: new Queue('workflow-runs', { connection: queueConnection }),
      callbacks: new Queue('callbacks', { connection: queueConnection }),
    };
    ctx.closers.push(
      () => ctx.queues.runs.close(),
      () => ctx.queues.callbacks.close(),
    );
    const apps = [...Object.values(stack), fake].map(({ name, pid }) => ({ name, pid }));
    ctx.apps = apps;
    const infra = infraProcesses({
      natsUrl: process.env.NATS_URL || 'nats://127.0.0.1:4222',
      redisUrl: options.redisUrl,
      databaseUrl: options.databaseUrl,
    });
    ctx.infra = infra.procs;
    ctx.accounted = [...apps, ...infra.procs];
    ctx.names = ctx.accounted.map((p) => p.name);
    const quiet = async () => {
      const cores = await settle(ctx.apps, { maxCores: 0.1, windowMs: 1_000 });
      if (cores >= 0.1) log(`warning: the stack still used ${fmt(cores)} cores after waiting 10 s for it to go quiet`);
    };

    log(`1. accepts: warm-up, ${WARMUP.acceptSeconds} s at ${options.connections} in flight (not reported)`);
    await acceptPhase(ctx, WARMUP.acceptSeconds, { measure: false });
    await quiet();
    log(`1. accepts: ${options.duration} s at ${options.connections} in flight`);
    const accepts = await acceptPhase(ctx, options.duration);

    await quiet();
    log(`1c. bare stack (${BARE.entry}): table ${BARE.table}, queue ${BARE.queue}, worker concurrency ${BARE.workerConcurrency}`);
    await createBareTable(options.databaseUrl);
    ctx.bareTableCreated = true;
    const bareProc = await startBare(ctx);
    log(`1c. bare stack: warm-up, ${WARMUP.acceptSeconds} s at ${options.connections} in flight (not reported)`);
    await barePhase(ctx, bareProc, WARMUP.acceptSeconds, { measure: false });
    await settle([...ctx.apps, { name: bareProc.name, pid: bareProc.pid }], { maxCores: 0.1, windowMs: 1_000 });
    log(`1c. bare stack: ${options.duration} s at ${options.connections} in flight`);
    const bare = await barePhase(ctx, bareProc, options.duration);
    await stopBare(ctx, bareProc);

    await quiet();
    log(`2. run end → callback: warm-up, ${WARMUP.rate} runs/s for ${WARMUP.rateSeconds} s (not reported)`);
    await endToCallbackPhase(ctx, WARMUP.rate, WARMUP.rateSeconds, { measure: false });
    await quiet();
    log(`2. run end → callback: ${options.rate} runs/s for ${options.rateSeconds} s`);
    const endToCallback = await endToCallbackPhase(ctx, options.rate, options.rateSeconds);

    await quiet();
    log(`3. direct model call: warm-up, then ${options.requests} sequential`);
    await directPhase(ctx, WARMUP.syncRequests);
    const directRun = await directPhase(ctx, options.requests);
    if (directRun.problems.length)
      ctx.failures.push(`direct: ${directRun.problems.length} of ${options.requests} calls failed (${directRun.problems[0]})`);
    const direct = { requests: options.requests, latencyMs: dist(directRun.answers.map((a) => a.ms)) };
    const sync = [];
    for (const k of options.steps) {
      await quiet();
      log(`3. sync invoke of ${k} prompt step(s): warm-up, then ${options.requests} sequential`);
      await sequential(
        stack.gateway.port,
        '/v1/workflow/invoke',
        ctx.auth,
        { deployment: promptDeployment(k), variant: 'default' },
        WARMUP.syncRequests,
        () => null,
      );
      const result = await syncPhase(ctx, k, options.requests);
      result.overheadPerStepMs = (result.latencyMs.p50 - k * direct.latencyMs.p50) / k;
      result.stepOverMeanDirectMs = result.stepDurationMs.mean - direct.latencyMs.mean;
      result.stepOverP50DirectMs = result.stepDurationMs.p50 - direct.latencyMs.p50;
      log(
        `sync K=${k}: p50 ${fmt(result.latencyMs.p50, 2)} ms (direct ${fmt(direct.latencyMs.p50, 3)} ms): overhead per step ${fmt(result.overheadPerStepMs, 2)} ms; ` +
          `step record mean ${fmt(result.stepDurationMs.mean, 2)} ms, gap mean ${fmt(result.gapMs.mean, 2)} ms`,
      );
      sync.push(result);
    }
    // Admission alone: runs execute where they are admitted, so pausing the queue holds them only
    // with that off (WORKFLOW_LOCAL_RUN_CONCURRENCY=0, every async run through the queue).
    log(`1b. accepts with the run queue paused (admission alone): invocation restarted with WORKFLOW_LOCAL_RUN_CONCURRENCY=0`);
    await restartInvocation(ctx, { WORKFLOW_LOCAL_RUN_CONCURRENCY: '0' });
    await quiet();
    log(`1b. accepts with the run queue paused (admission alone): ${options.pausedDuration} s at ${options.connections} in flight`);
    const acceptsPaused = await acceptPhase(ctx, options.pausedDuration, { paused: true });

    // With two step counts, the per-step (marginal) cost and the fixed cost separate.
    const [low, high] = [sync[0], sync.at(-1)];
    const split =
      sync.length > 1 && high.k > low.k
        ? (() => {
            const perStep = (high.latencyMs.p50 - low.latencyMs.p50) / (high.k - low.k);
            return {
              perStepMs: perStep,
              perStepOverDirectMs: perStep - direct.latencyMs.p50,
              fixedMs: low.latencyMs.p50 - low.k * perStep,
            };
          })()
        : null;

    report = {
      aims: aimsOf({ accepts, split, bare }),
      options: { ...options, json: undefined },
      machine: info,
      redisUrl: options.redisUrl,
      database: databaseName,
      otherProcesses: others,
      processes: ctx.names,
      accepts,
      acceptsPaused,
      bare,
      engineShareOfBare: {
        accepts: accepts.acceptedPerSecond / bare.acceptedPerSecond,
        completions: accepts.completedPerSecond / bare.completedPerSecond,
      },
      endToCallback,
      direct,
      sync,
      split,
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
  }
  if (!report) {
    for (const failure of ctx.failures) log(`FAILED: ${failure}`);
    process.exit(1);
  }
  report.machine.loadAverageAtEnd = loadAverage();
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : markdown(report));
  for (const failure of ctx.failures) log(`FAILED: ${failure}`);
  process.exit(ctx.failures.length ? 1 : 0);
}

// ---------------------------------------------------------------------------------------
// Report

/**
 * Issue 39's aims for the engine, and issue 22's per-step aim, each beside its figure: met, or
 * missed by how much. The async aims are the absolute figure or BARE_SHARE_AIM of the bare
 * stack's, whichever is lower.
 */
function aimsOf({ accepts, split, bare }) {
  const aim = (issue, name, figure, unit, target, higherIsBetter, extra = {}) => ({
    issue,
    name,
    figure,
    unit,
    target,
    met: Number.isFinite(figure) && (higherIsBetter ? figure >= target : figure <= target),
    missedBy: Number.isFinite(figure) ? (higherIsBetter ? target - figure : figure - target) : NaN,
    higherIsBetter,
    ...extra,
  });
  const ofBare = (name, figure, absoluteTarget, bareFigure) => {
    const bareTarget = BARE_SHARE_AIM * bareFigure;
    const target = Number.isFinite(bareTarget) ? Math.min(absoluteTarget, bareTarget) : absoluteTarget;
    return aim('39', name, figure, '/s', target, true, {
      absoluteTarget,
      bareFigure,
      bareShareTarget: BARE_SHARE_AIM,
      bareTarget,
      shareOfBare: figure / bareFigure,
      targetFrom: target === absoluteTarget ? 'absolute' : 'bare stack',
    });
  };
  return [
    ofBare('async accepts/s with runs executing (one template step)', accepts?.acceptedPerSecond, 1000, bare?.acceptedPerSecond),
    ofBare('runs completed/s, invoke to callback', accepts?.completedPerSecond, 500, bare?.completedPerSecond),
    aim('39', "a sync one-step run's fixed cost", split?.fixedMs, 'ms', 3, false),
    aim('22', 'engine overhead per step over the bare model call', split?.perStepOverDirectMs, 'ms', 0.5, false),
  ];
}

const three = (d, digits = 1) => `${fmt(d.p50, digits)} / ${fmt(d.p95, digits)} / ${fmt(d.p99, digits)}`;

function markdown(r) {
  const a = r.accepts;
  const ap = r.acceptsPaused;
  const b = r.bare;
  const e = r.endToCallback;
  const cpuCells = (cpu) =>
    ['gateway', 'invocation', DISPATCHER, 'NATS', 'Redis', 'PostgreSQL'].map((name) => fmt(cpu.msPerUnit[name], 2)).join(' | ');
  const lines = [
    `Workflows against the fake provider (0 ms), workspace workflow concurrency ${r.options.workflowConcurrency}; Node ${r.machine.node}, ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.date}; ` +
      `load average at start ${r.machine.loadAverage}, at end ${r.machine.loadAverageAtEnd}. Redis ${r.redisUrl}, PostgreSQL ${r.database}.`,
    '',
    `### 1. Async accepts (one \`template\` step, ${a.connections} in flight)`,
    '',
    '| runs | window (s) | accepted/s | accept p50 / p99 (ms) | max (ms) | accepted | queued (share) | runs completed/s, first invoke → last callback | last callback after the window (ms) | callbacks missing / dup / bad sig |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...[a, ap].map(
      (x) =>
        `| ${x.paused ? 'run queue paused in the window (admission alone)' : 'executed meanwhile'} | ${fmt(x.seconds, 1)} | **${fmt(x.acceptedPerSecond, 0)}** | ${fmt(x.acceptLatencyMs.p50, 1)} / ${fmt(x.acceptLatencyMs.p99, 1)} | ${fmt(x.acceptLatencyMs.max, 1)} | ${x.accepted} | ${x.queued} (${fmt(x.queuedShare * 100, 1)} %) | ${fmt(x.completedPerSecond, 0)} | ${fmt(x.lastCallbackAfterWindowMs, 0)} | ${x.check.missing} / ${x.check.duplicates} / ${x.check.badSignatures} |`,
    ),
    '',
    `### 1c. Bare-stack leg (${b.connections} in flight, worker concurrency ${b.workerConcurrency})`,
    '',
    "Per run only an INSERT of a row (PostgreSQL), a BullMQ `add`, the job taken by a BullMQ Worker and an UPDATE of the row, behind a `node:http` server in a process of the bench's own (scripts/bench/bare-stack.mjs); the engine's figures of phase 1 as a share of it.",
    '',
    '| leg | window (s) | accepted/s | accept p50 / p99 (ms) | max (ms) | accepted | completed/s, first request → last job completed | last completion after the window (ms) | missing / failed / row not queued |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| bare stack | ${fmt(b.seconds, 1)} | **${fmt(b.acceptedPerSecond, 0)}** | ${fmt(b.acceptLatencyMs.p50, 1)} / ${fmt(b.acceptLatencyMs.p99, 1)} | ${fmt(b.acceptLatencyMs.max, 1)} | ${b.accepted} | **${fmt(b.completedPerSecond, 0)}** | ${fmt(b.lastCompletionAfterWindowMs, 0)} | ${b.problems.missing} / ${b.problems.failed} / ${b.problems.notUpdated} |`,
    `| engine (phase 1, runs executed meanwhile) | ${fmt(a.seconds, 1)} | ${fmt(a.acceptedPerSecond, 0)} | ${fmt(a.acceptLatencyMs.p50, 1)} / ${fmt(a.acceptLatencyMs.p99, 1)} | ${fmt(a.acceptLatencyMs.max, 1)} | ${a.accepted} | ${fmt(a.completedPerSecond, 0)} (to the callback) | ${fmt(a.lastCallbackAfterWindowMs, 0)} | |`,
    `| **engine as a share of the bare stack** | | **${fmt(r.engineShareOfBare.accepts * 100, 0)} %** | | | | **${fmt(r.engineShareOfBare.completions * 100, 0)} %** | | |`,
    '',
    `### 2. Run end → callback (${e.rate} runs/s for ${e.seconds} s, ${e.accepted} runs)`,
    '',
    'ms, p50 / p95 / p99 (max):',
    '',
    '| **run ended_at → callback arrival** | accept answer → arrival | accept answer (latency) | accepted → worker took the run | run started → ended | ended → callback job added | added → dispatcher took it | took → arrival | missing / dup / bad sig |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| **${three(e.endToCallbackMs)}** (${fmt(e.endToCallbackMs.max, 0)}) | ${three(e.acceptToCallbackMs)} (${fmt(e.acceptToCallbackMs.max, 0)}) | ${three(e.acceptLatencyMs)} | ${three(e.acceptToRunPickupMs, 0)} | ${three(e.runStartToEndMs, 0)} | ${three(e.endToCallbackJobMs, 0)} | ${three(e.callbackJobToPickupMs, 0)} | ${three(e.callbackPickupToArrivalMs, 0)} | ${e.check.missing} / ${e.check.duplicates} / ${e.check.badSignatures} |`,
    '',
    `### 3. Engine overhead per step (sync, sequential, ${r.direct.requests} invokes each)`,
    '',
    `Bare model call (the fake provider's chat completion, same message, one keep-alive connection): p50 ${fmt(r.direct.latencyMs.p50, 3)} ms, mean ${fmt(r.direct.latencyMs.mean, 3)} ms, p99 ${fmt(r.direct.latencyMs.p99, 3)} ms.`,
    '',
    '| K prompt steps | sync invoke p50 / p99 (ms) | **overhead per step = (p50 − K × direct p50) / K** | step record duration mean / p50 (ms) | step duration − direct (mean) | gap between steps mean / p50 / p99 (ms) | run started → first step | last step → run ended | invoke outside the run (p50) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const s of r.sync) {
    lines.push(
      `| ${s.k} | ${fmt(s.latencyMs.p50, 2)} / ${fmt(s.latencyMs.p99, 2)} | **${fmt(s.overheadPerStepMs, 2)}** | ${fmt(s.stepDurationMs.mean, 2)} / ${fmt(s.stepDurationMs.p50, 0)} | ${fmt(s.stepOverMeanDirectMs, 2)} | ${s.gapMs.count ? `${fmt(s.gapMs.mean, 2)} / ${fmt(s.gapMs.p50, 0)} / ${fmt(s.gapMs.p99, 0)}` : 'n/a'} | ${fmt(s.runStartToFirstStepMs.mean, 2)} | ${fmt(s.lastStepToRunEndMs.mean, 2)} | ${fmt(s.outsideRunMs.p50, 2)} |`,
    );
  }
  if (r.split)
    lines.push(
      '',
      `From K = ${r.sync[0].k} and K = ${r.sync.at(-1).k}: each further step adds **${fmt(r.split.perStepMs, 2)} ms** at p50 (${fmt(r.split.perStepOverDirectMs, 2)} ms over the bare call); ` +
        `the fixed cost of a sync run (gateway, admission, answer) is **${fmt(r.split.fixedMs, 2)} ms**.`,
    );
  lines.push(
    '',
    '### Against the aims (issue 39, and issue 22 per step)',
    '',
    `The async aims are ${r.aims[0].absoluteTarget}/s and ${r.aims[1].absoluteTarget}/s, or ${fmt(BARE_SHARE_AIM * 100, 0)} % of the bare stack's figure, whichever is lower.`,
    '',
    '| issue | aim | figure | target | share of the bare stack | |',
    '| ---: | --- | ---: | ---: | ---: | --- |',
    ...r.aims.map((a) => {
      const digits = a.unit === 'ms' ? 2 : 0;
      const target = `${a.higherIsBetter ? '≥' : '≤'} ${fmt(a.target, digits)} ${a.unit}${
        a.bareFigure === undefined
          ? ''
          : a.targetFrom === 'absolute'
            ? ` (the absolute aim; ${fmt(BARE_SHARE_AIM * 100, 0)} % of the bare stack is ${fmt(a.bareTarget, 0)})`
            : ` (${fmt(BARE_SHARE_AIM * 100, 0)} % of the bare stack's ${fmt(a.bareFigure, 0)}; the absolute aim is ${a.absoluteTarget})`
      }`;
      const share = a.bareFigure === undefined ? '' : `${fmt(a.shareOfBare * 100, 0)} %`;
      return `| ${a.issue} | ${a.name} | ${fmt(a.figure, digits)} ${a.unit} | ${target} | ${share} | ${a.met ? 'met' : `**missed** by ${fmt(a.missedBy, digits)} ${a.unit}`} |`;
    }),
    '',
    'CPU ms per run (accepts, run end → callback) or per sync invoke (K steps): gateway | invocation | callback-dispatcher | NATS | Redis | PostgreSQL',
    '',
    '| phase | gateway | invocation | callback-dispatcher | NATS | Redis | PostgreSQL | busy cores |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| accepts, runs executed meanwhile (CPU in the accept window) | ${cpuCells(a.cpu)} | ${fmt(a.cpu.cores.busy)} |`,
    `| accepts, run queue paused (admission alone) | ${cpuCells(ap.cpu)} | ${fmt(ap.cpu.cores.busy)} |`,
    `| bare stack (its process: ${fmt(b.cpu.msPerUnit['bare-stack'], 2)} ms) | | | | ${fmt(b.cpu.msPerUnit.NATS, 2)} | ${fmt(b.cpu.msPerUnit.Redis, 2)} | ${fmt(b.cpu.msPerUnit.PostgreSQL, 2)} | ${fmt(b.cpu.cores.busy)} |`,
    `| ${e.rate} runs/s, invoke to callback | ${cpuCells(e.cpu)} | ${fmt(e.cpu.cores.busy)} |`,
    ...r.sync.map((s) => `| sync, K = ${s.k} | ${cpuCells(s.cpu)} | ${fmt(s.cpu.cores.busy)} |`),
    '',
  );
  if (r.otherProcesses.length)
    lines.push(
      `Warning: other Waggle apps or benchmarks were running: ${r.otherProcesses.map((o) => `${o.what} (pid ${o.pid})`).join(', ')}.`,
      '',
    );
  if (r.failures.length) lines.push('Failures:', ...r.failures.map((failure) => `- ${failure}`), '');
  return lines.join('\n');
}

main().catch((error) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
