#!/usr/bin/env node
// Prompt invoke, with the peer in it: the direct call to the model provider, Portkey's
// gateway and Waggle's full path (gateway → NATS → invocation → provider layer → model
// provider, and back), the last by its native route (`POST /v1/prompt/invoke`) and by its
// OpenAI-compatible one (`POST /openai/v1/chat/completions` with the model id
// `prompt/bench/default`), measured in interleaved rounds against the same fake provider
// (docs/benchmarks/invoke.md).
//
//   npm run build && npm run bench [-- --rounds N] [--duration N] [--streams N] [--lean on|off] [--exporter on|off] [--portkey on|off] [--json] [--json-file PATH]
//
// --portkey off leaves the peer out (nothing installed, no Portkey leg; its ratios and the aims
// against it read n/a): for comparing two builds of Waggle where Portkey cannot be installed.
//
// Starts its own fake model provider (no latency by default), Portkey's gateway (pinned in
// scripts/bench/portkey, installed there with `npm ci` when missing), and catalog,
// invocation and gateway from dist/ with `npm run up`'s defaults (LOG_LEVEL unset, so
// `info`; tracing on, spans created and not exported), on free loopback ports after
// running the migrations. Loads a copy of the shipped model catalog with one extra model
// served by the fake provider, creates a workspace on the enterprise plan and applies one
// prompt deployment with the operator CLI. Then, in each round, for each of the four (in
// an order that rotates from round to round; within a phase the two Waggle legs are never
// one right after the other), once the processes have gone quiet:
//   - latency: D s of sequential requests on one keep-alive connection, each timed with
//     performance.now() (autocannon's histogram keeps whole milliseconds);
//   - throughput: D s at 64 connections with autocannon, with the CPU time each process
//     on the path used (/proc), per request;
//   - streaming: M sequential streamed requests, timed to the first SSE `data:` event and to
//     the first event carrying text (the aim's measure: an OpenAI-protocol provider's first
//     event announces the role with empty content, and Waggle relays only text).
// After the rounds: the NATS messages (every subject, from a subscriber on `>`) and Redis
// commands (INFO commandstats) per Waggle request, in a short phase of its own; then, with
// --exporter on (the default), Waggle again with its spans exported over OTLP/HTTP to a
// loopback sink that drops them (scripts/bench/otlp-sink.mjs: the cost of tracing with an
// exporter set, against the defaults' unexported spans), and with --lean on (the default),
// Waggle again with LOG_LEVEL=warn and tracing off, each alone.
// At the end the shipped catalog is loaded back (catalog load --force) before everything
// is stopped. Needs PostgreSQL, Redis and NATS (scripts/ensure-infra.sh) and the npm
// registry the first time (Portkey). Markdown on stdout (JSON with --json), progress on
// stderr. Exits 1 when a request failed or answered non-2xx (Portkey's streams excepted:
// what they do is reported), when something did not start, or when a process did not exit
// cleanly after SIGTERM.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import Redis from 'ioredis';
import { connect } from 'nats';
import {
  exitUnlessBuilt,
  benchCatalogYaml,
  benchPromptYaml,
  cannon,
  cpuBetween,
  cpuSnapshot,
  fmt,
  freePort,
  httpRequest,
  infraProcesses,
  loadAverage,
  log,
  machine,
  median,
  otherWaggleProcesses,
  restoreShippedCatalog,
  runNode,
  settle,
  sleep,
  startProcess,
  stopProcess,
  summarize,
  waitFor,
  waitForGatewayToSee,
  EXIT_TIMEOUT_MS,
  ROOT,
  distEntries,
} from './bench-lib.mjs';

const ENTRIES = distEntries('migrate', 'cli', 'fake', 'catalog', 'invocation', 'gateway');
const PORTKEY_DIR = 'scripts/bench/portkey';
const PORTKEY_PACKAGE = `${PORTKEY_DIR}/node_modules/@portkey-ai/gateway`;
const PORTKEY_ENTRY = `${PORTKEY_PACKAGE}/build/start-server.js`;

// 5 s rather than the other benches' 2: V8 keeps optimising the apps' hot paths for a
// while, and with 2 s Waggle's first round was its slowest in a trial run.
const WARMUP = { connections: 8, duration: 5, streams: 20 };
const THROUGHPUT_CONNECTIONS = 64;
const STREAM_TIMEOUT_MS = 10_000;
// A leg whose streams keep failing (Portkey's, here) is not waited on for every request.
const STREAM_FAILURES_TO_GIVE_UP = 5;
const COUNTING = { requests: 200, streams: 50, idleMs: 3_000, tailMs: 1_000 };
const MODEL = 'fake-chat';
const QUESTION = 'hello there';
const EXPECTED_RESPONSE = `Echo: ${QUESTION}`;
// Issue 10: Waggle against Portkey on the same machine and fake provider.
const AIMS = { rpsTimesPortkey: 2, addedP50TimesPortkey: 1, addedP99TimesPortkey: 1.5, addedFirstEventP99Ms: 5, cpuMsPerRequest: 2.5 };
// Issue 22's aims for this path (ratios from the same run): throughput, added p50, added first text event p99.
const AIMS_22 = { rpsTimesPortkey: 2, addedP50TimesPortkey: 1, addedFirstTextP99Ms: 5 };
// Issue 39 (performance by design): the same figures, with aims relative to Portkey relaxed.
const AIMS_39 = { rpsTimesPortkey: 1.5, addedP50TimesPortkey: 1.5, addedFirstTextP99Ms: 5 };
// The OpenAI-compatible route against the native one, to the same deployment in the same rounds: within 10 %.
const AIMS_OPENAI = { rpsTimesNative: 0.9, addedP50TimesNative: 1.1 };
// Processes whose CPU is accounted, in table order; each leg's total counts its own path.
const PROC_COLUMNS = ['gateway', 'invocation', 'catalog', 'NATS', 'Redis', 'PostgreSQL', 'portkey', 'fake-provider'];
const WAGGLE_PATH = ['gateway', 'invocation', 'catalog', 'NATS', 'Redis', 'PostgreSQL'];
// What `npm run up` would take from the caller's shell and a bench must not: the Waggle leg is the defaults.
const NOT_DEFAULTS = ['LOG_LEVEL', 'OTEL_SDK_DISABLED', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];

function usage(message) {
  if (message) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write(
    'usage: node scripts/bench/invoke.mjs [--rounds N] [--duration N] [--streams N] [--latency-ms N] [--token-delay-ms N] [--lean on|off] [--exporter on|off] [--portkey on|off] [--json] [--json-file PATH]\n',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = {
    rounds: 3,
    duration: 5,
    streams: 100,
    latencyMs: 0,
    tokenDelayMs: 5,
    lean: 'on',
    portkey: 'on',
    exporter: 'on',
    json: false,
    jsonFile: null,
  };
  const integers = {
    '--rounds': ['rounds', 1],
    '--duration': ['duration', 1],
    '--streams': ['streams', 1],
    '--latency-ms': ['latencyMs', 0],
    '--token-delay-ms': ['tokenDelayMs', 0],
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
    else if (arg === '--help' || arg === '-h') usage();
    else if (Object.hasOwn(integers, name)) {
      const [key, min] = integers[name];
      options[key] = Number(value());
      if (!Number.isInteger(options[key]) || options[key] < min) usage(`${name} must be a whole number, at least ${min}`);
    } else if (name === '--json-file') options.jsonFile = value();
    else if (name === '--lean' || name === '--exporter' || name === '--portkey') {
      const key = name.slice(2);
      options[key] = value();
      if (!['on', 'off'].includes(options[key])) usage(`${name} must be on or off`);
    } else usage(`unknown argument ${arg}`);
  }
  return options;
}

/** The apps' environment as `npm run up` gives it (defaults), or with LOG_LEVEL=warn and tracing off (`lean`). */
function appEnv(lean) {
  const env = { ...process.env, HOST: '127.0.0.1', DATABASE_URL: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle' };
  for (const name of NOT_DEFAULTS) delete env[name];
  if (lean) Object.assign(env, { LOG_LEVEL: 'warn', OTEL_SDK_DISABLED: 'true' });
  return env;
}

/** Installs the pinned Portkey from its own package-lock.json when it is missing or another version. */
function ensurePortkey() {
  const pinned = JSON.parse(readFileSync(join(ROOT, PORTKEY_DIR, 'package.json'), 'utf8')).dependencies['@portkey-ai/gateway'];
  const installedFile = join(ROOT, PORTKEY_PACKAGE, 'package.json');
  const installed = existsSync(installedFile) ? JSON.parse(readFileSync(installedFile, 'utf8')).version : null;
  if (installed === pinned && existsSync(join(ROOT, PORTKEY_ENTRY))) return pinned;
  log(`installing @portkey-ai/gateway ${pinned} (npm ci --prefix ${PORTKEY_DIR}; was ${installed ?? 'not installed'})`);
  // --ignore-scripts: its postinstall is patch-package, which has no patches in the published package.
  const result = spawnSync('npm', ['ci', '--prefix', PORTKEY_DIR, '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
  });
  if (result.status !== 0) throw new Error(`npm ci --prefix ${PORTKEY_DIR} failed (exit ${result.status ?? result.signal})`);
  return pinned;
}

/**
 * One POST to `target` on `agent`, timed from just before the request is written;
 * `onData(text, ms)` sees each piece of the body as it arrives. Resolves with the status,
 * the time to the end of the body, and an error text when it failed or timed out.
 */
function timed(target, payload, agent, onData, accept) {
  return new Promise((resolve) => {
    const started = performance.now();
    const result = { status: 0 };
    let finished = false;
    const finish = (error) => {
      if (finished) return;
      finished = true;
      if (error) result.error = error;
      result.totalMs ??= performance.now() - started;
      resolve(result);
    };
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: target.path,
        method: 'POST',
        agent,
        timeout: STREAM_TIMEOUT_MS,
        headers: {
          ...target.headers,
          'content-type': 'application/json',
          'content-length': payload.length,
          ...(accept ? { accept } : {}),
        },
      },
      (res) => {
        result.status = res.statusCode ?? 0;
        const decoder = new StringDecoder('utf8');
        res.on('data', (chunk) => onData(decoder.write(chunk), performance.now() - started));
        res.once('end', () => {
          result.totalMs = performance.now() - started;
          finish();
        });
        res.once('error', (error) => finish(error.message));
      },
    );
    req.once('timeout', () => {
      req.destroy();
      finish(`no complete answer within ${STREAM_TIMEOUT_MS} ms`);
    });
    req.once('error', (error) => finish(error.message));
    req.end(payload);
  });
}

/** One non-streamed request: its time, and an error unless it answered 200 with the expected text. */
async function timeRequest(target, agent) {
  let body = '';
  const result = await timed(target, target.payload, agent, (text) => (body += text));
  if (result.error) return result;
  if (result.status !== 200) return { ...result, error: `HTTP ${result.status}: ${body.slice(0, 300)}` };
  let text;
  try {
    text = target.responseText(JSON.parse(body));
  } catch {
    // reported below
  }
  if (text !== EXPECTED_RESPONSE) return { ...result, error: `answered ${JSON.stringify(body.slice(0, 300))}` };
  return { ...result, ok: true };
}

/**
 * One streamed request: the time to the first SSE `data:` event, to the first event
 * carrying text (`target.textOf` says which) and to the end. Fails on a non-200, an `error`
 * event, a missing `data: [DONE]`, text other than the expected or a time-out.
 */
async function timeStream(target, agent) {
  let buffer = '';
  let raw = '';
  let done = false;
  let eventError;
  let streamed;
  const times = {};
  const result = await timed(
    target,
    target.streamPayload,
    agent,
    (chunk, ms) => {
      if (raw.length < 300) raw += chunk;
      buffer += chunk;
      if (times.firstEventMs === undefined && /(^|\n)data:/.test(buffer)) times.firstEventMs = ms;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const line of event.split('\n')) {
          if (!line.startsWith('data:')) continue;
          const data = line.slice(5).trim();
          if (data === '[DONE]') {
            done = true;
            continue;
          }
          let parsed;
          try {
            parsed = JSON.parse(data);
          } catch {
            eventError ??= `not JSON: ${data.slice(0, 200)}`;
            continue;
          }
          if (parsed?.type === 'error' || parsed?.error) eventError ??= `error event: ${data.slice(0, 300)}`;
          const text = target.textOf(parsed);
          if (text) {
            times.firstTextMs ??= ms;
            streamed = (streamed ?? '') + text;
          }
        }
      }
    },
    'text/event-stream',
  );
  Object.assign(result, times);
  if (result.error) return result;
  if (result.status !== 200) return { ...result, error: `HTTP ${result.status}: ${raw.slice(0, 300)}` };
  if (eventError) return { ...result, error: eventError };
  if (!done) return { ...result, error: `stream ended without data: [DONE] (began ${JSON.stringify(raw.slice(0, 200))})` };
  if (streamed !== EXPECTED_RESPONSE)
    return { ...result, error: `streamed text ${JSON.stringify(streamed)}, expected ${JSON.stringify(EXPECTED_RESPONSE)}` };
  return { ...result, ok: true };
}

/**
 * Sequential requests on one keep-alive connection, `time` doing each, for `durationS`
 * seconds or `count` requests, with the CPU each process used; gives up on a leg after
 * `giveUpAfter` failures in a row.
 */
async function sequentialRun(target, time, { durationS, count, procs, giveUpAfter = Infinity }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const results = [];
  const failures = [];
  let inARow = 0;
  const before = cpuSnapshot(procs);
  const until = durationS ? performance.now() + durationS * 1000 : Infinity;
  while (results.length < (count ?? Infinity) && performance.now() < until) {
    const result = await time(target, agent);
    results.push(result);
    if (result.ok) inARow = 0;
    else {
      failures.push(result.error ?? `HTTP ${result.status}`);
      if ((inARow += 1) >= giveUpAfter) break;
    }
  }
  const cpu = cpuBetween(before, cpuSnapshot(procs));
  agent.destroy();
  const good = results.filter((result) => result.ok);
  return {
    requests: results.length,
    failed: failures.length,
    gaveUp: failures.length > 0 && inARow >= giveUpAfter,
    failures: [...new Set(failures)].slice(0, 5),
    requestsPerSecond: results.length / cpu.seconds,
    samples: {
      totalMs: good.map((result) => result.totalMs),
      firstEventMs: good.map((result) => result.firstEventMs).filter((ms) => ms !== undefined),
      firstTextMs: good.map((result) => result.firstTextMs).filter((ms) => ms !== undefined),
    },
    cpuCores: cpu,
  };
}

/** CPU ms per request of every accounted process (and the bench), summed over runs. */
function cpuPerRequest(runs) {
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const names = [...PROC_COLUMNS, 'bench', 'infra', 'other'];
  return Object.fromEntries(
    names.map((name) => [
      name,
      runs.reduce((sum, run) => sum + (run.cpuCores[name] ?? 0) * run.cpuCores.seconds * 1000, 0) / (requests || 1),
    ]),
  );
}

/** One leg's figures over all its rounds: every sample pooled, req/s the median round. */
function aggregate(leg) {
  const { rounds } = leg;
  const pooled = (phase, kind) => summarize(rounds.flatMap((round) => round[phase]?.samples[kind] ?? []));
  const cpu = cpuPerRequest(rounds.map((round) => round.throughput));
  const streams = rounds.map((round) => round.streaming).filter(Boolean);
  return {
    latencyMs: pooled('latency', 'totalMs'),
    requestsPerSecond1: median(rounds.map((round) => round.latency.requestsPerSecond)),
    requestsPerSecond: median(rounds.map((round) => round.throughput.requestsPerSecond)),
    requestsPerSecondRounds: rounds.map((round) => round.throughput.requestsPerSecond),
    latencyP50Rounds: rounds.map((round) => summarize(round.latency.samples.totalMs).p50),
    firstEventMs: pooled('streaming', 'firstEventMs'),
    firstTextMs: pooled('streaming', 'firstTextMs'),
    streamMs: pooled('streaming', 'totalMs'),
    streams: streams.reduce((sum, run) => sum + run.requests, 0),
    streamsFailed: streams.reduce((sum, run) => sum + run.failed, 0),
    streamFailures: [...new Set(streams.flatMap((run) => run.failures))].slice(0, 5),
    cpuMsPerRequest: cpu,
    cpuMsPerRequestPath: leg.pathProcs.reduce((sum, name) => sum + cpu[name], 0),
  };
}

/**
 * Groups NATS subjects so that per-request ids (inboxes, acks, request ids) do not make a
 * line each: `_INBOX.>`, `$JS.ACK.<stream>.<consumer>.>`, other id-like tokens as `*`.
 */
function subjectGroup(subject) {
  const tokens = subject.split('.');
  if (tokens[0] === '_INBOX') return '_INBOX.>';
  if (tokens[0] === '$JS' && tokens[1] === 'ACK') return `${tokens.slice(0, 4).join('.')}.>`;
  return tokens.map((token) => (/^[\w-]{16,}$/.test(token) && /\d/.test(token) ? '*' : token)).join('.');
}

/** Redis's calls per command so far (INFO commandstats). */
async function redisCalls(redis) {
  const calls = {};
  for (const match of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[match[1]] = Number(match[2]);
  return calls;
}

/**
 * NATS messages (published on any subject, seen by a subscriber on `>`) and Redis commands
 * per Waggle request: first an idle window (what the apps do on their own), then
 * `COUNTING.requests` sequential requests and `COUNTING.streams` streamed ones. Runs apart
 * from the timed rounds: the subscriber doubles what NATS sends.
 */
async function countTraffic(target, { natsUrl, redisUrl, quiet }) {
  const nc = await connect({ servers: natsUrl.split(','), name: 'waggle-bench-counter' });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  await redis.connect();
  let window = null;
  const tally = (into) => (_error, msg) => {
    if (!window) return;
    const entry = (window[into][subjectGroup(msg.subject)] ??= { messages: 0, bytes: 0 });
    entry.messages += 1;
    entry.bytes += msg.data.length;
  };
  // `>` matches JetStream's `$JS.…` subjects on nats-server 2.9, and each subscription gets
  // its own copy; `$JS.>` is a fallback for a server where it does not, counted only then.
  nc.subscribe('>', { callback: tally('subjects') });
  nc.subscribe('$JS.>', { callback: tally('jetstream') });
  await nc.flush();
  const measure = async (what, work) => {
    await quiet();
    const redisBefore = await redisCalls(redis);
    window = { subjects: {}, jetstream: {}, started: performance.now() };
    const requests = await work();
    await sleep(COUNTING.tailMs); // the ledger's batched write and its acknowledgement
    await nc.flush();
    const seconds = (performance.now() - window.started) / 1000;
    const { subjects, jetstream } = window;
    window = null;
    if (!Object.keys(subjects).some((name) => name.startsWith('$JS.'))) Object.assign(subjects, jetstream);
    const redisAfter = await redisCalls(redis);
    const commands = {};
    for (const [name, calls] of Object.entries(redisAfter)) {
      // One INFO of ours falls inside each window.
      const delta = calls - (redisBefore[name] ?? 0) - (name === 'info' ? 1 : 0);
      if (delta > 0) commands[name] = delta;
    }
    log(
      `${what}: ${Object.values(subjects).reduce((sum, s) => sum + s.messages, 0)} NATS messages, ${Object.values(commands).reduce((sum, n) => sum + n, 0)} Redis commands in ${fmt(seconds)} s`,
    );
    return { requests, seconds, subjects, commands };
  };
  try {
    const idle = await measure('idle', async () => {
      await sleep(COUNTING.idleMs - COUNTING.tailMs);
      return 0;
    });
    const plain = await measure(`${COUNTING.requests} requests`, async () => {
      const run = await sequentialRun(target, timeRequest, { count: COUNTING.requests, procs: [] });
      if (run.failed) throw new Error(`counting phase: ${run.failed} requests failed: ${run.failures.join('; ')}`);
      return run.requests;
    });
    const streamed = await measure(`${COUNTING.streams} streamed requests`, async () => {
      const run = await sequentialRun(target, timeStream, { count: COUNTING.streams, procs: [] });
      if (run.failed) throw new Error(`counting phase: ${run.failed} streams failed: ${run.failures.join('; ')}`);
      return run.requests;
    });
    return { idle, plain, streamed };
  } finally {
    await nc.close();
    redis.disconnect();
  }
}

/** Per request, net of what the idle window saw in the same time. */
function perRequest(phase, idle) {
  const rate = (count) => count / idle.seconds;
  const net = (count, idleCount) => (count - rate(idleCount) * phase.seconds) / phase.requests;
  const subjects = {};
  for (const name of new Set([...Object.keys(phase.subjects), ...Object.keys(idle.subjects)])) {
    const here = phase.subjects[name] ?? { messages: 0, bytes: 0 };
    const there = idle.subjects[name] ?? { messages: 0, bytes: 0 };
    subjects[name] = {
      messages: net(here.messages, there.messages),
      bytes: net(here.bytes, there.bytes),
      idlePerSecond: rate(there.messages),
    };
  }
  const commands = {};
  for (const name of new Set([...Object.keys(phase.commands), ...Object.keys(idle.commands)])) {
    commands[name] = { calls: net(phase.commands[name] ?? 0, idle.commands[name] ?? 0), idlePerSecond: rate(idle.commands[name] ?? 0) };
  }
  const total = (entries, key) => Object.values(entries).reduce((sum, entry) => sum + entry[key], 0);
  return {
    requests: phase.requests,
    seconds: phase.seconds,
    messages: total(subjects, 'messages'),
    bytes: total(subjects, 'bytes'),
    subjects,
    commands: total(commands, 'calls'),
    commandsByName: commands,
  };
}

// Net figures that are zero but for rounding print as 0, not -0.00.
const ms = (value, digits = 2) => fmt(Math.abs(value) < 0.5 * 10 ** -digits ? 0 : value, digits);
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN);
// Portkey's figures with `--portkey off`: none, so every ratio and aim against it reads n/a.
const NO_PEER = {
  figures: {
    latencyMs: { p50: NaN, p99: NaN },
    requestsPerSecond: NaN,
    firstEventMs: { p50: NaN, p99: NaN },
    firstTextMs: { p50: NaN, p99: NaN },
    cpuMsPerRequestPath: NaN,
  },
  added: { p50Ms: NaN, p99Ms: NaN, firstEventP50Ms: NaN, firstEventP99Ms: NaN, firstTextP50Ms: NaN, firstTextP99Ms: NaN },
};

function aimRows(report) {
  const { waggle, portkey = NO_PEER } = report.legs;
  const added = { portkey: NO_PEER.added, ...report.added };
  const rows = [];
  const row = (figure, value, aim, met, margin) => rows.push({ figure, value, aim, met, margin });
  const rpsAim = AIMS.rpsTimesPortkey * portkey.figures.requestsPerSecond;
  row(
    `req/s at ${THROUGHPUT_CONNECTIONS} conn`,
    `${fmt(waggle.figures.requestsPerSecond, 0)}`,
    `≥ ${AIMS.rpsTimesPortkey}× Portkey's = ${fmt(rpsAim, 0)}`,
    waggle.figures.requestsPerSecond >= rpsAim,
    `${fmt(ratio(waggle.figures.requestsPerSecond, rpsAim), 2)}× the aim`,
  );
  const p50Aim = AIMS.addedP50TimesPortkey * added.portkey.p50Ms;
  row(
    'added p50, 1 conn',
    `${ms(added.waggle.p50Ms, 3)} ms`,
    `≤ Portkey's = ${ms(p50Aim, 3)} ms`,
    added.waggle.p50Ms <= p50Aim,
    `${ms(added.waggle.p50Ms - p50Aim, 3)} ms over`,
  );
  const p99Aim = AIMS.addedP99TimesPortkey * added.portkey.p99Ms;
  row(
    'added p99, 1 conn',
    `${ms(added.waggle.p99Ms, 3)} ms`,
    `≤ ${AIMS.addedP99TimesPortkey}× Portkey's = ${ms(p99Aim, 3)} ms`,
    added.waggle.p99Ms <= p99Aim,
    `${ms(added.waggle.p99Ms - p99Aim, 3)} ms over`,
  );
  // To the first event that carries text: the provider's own first event (OpenAI's role
  // announcement, empty content) is not relayed, so "first event" compares different events.
  row(
    'added time to first text event, p99',
    `${ms(added.waggle.firstTextP99Ms, 3)} ms`,
    `< ${AIMS.addedFirstEventP99Ms} ms`,
    added.waggle.firstTextP99Ms < AIMS.addedFirstEventP99Ms,
    `${ms(added.waggle.firstTextP99Ms - AIMS.addedFirstEventP99Ms, 3)} ms over`,
  );
  row(
    `CPU per request on the path, ${THROUGHPUT_CONNECTIONS} conn`,
    `${ms(waggle.figures.cpuMsPerRequestPath, 3)} ms`,
    `< ${AIMS.cpuMsPerRequest} ms`,
    waggle.figures.cpuMsPerRequestPath < AIMS.cpuMsPerRequest,
    `${ms(waggle.figures.cpuMsPerRequestPath - AIMS.cpuMsPerRequest, 3)} ms over`,
  );
  return rows;
}

/**
 * Issue 22's or issue 39's aims (`aims`) beside the run's figures, each met or missed and by how
 * much (a margin for a met aim too): what `npm run bench` prints last, and `aims22` and `aims39`
 * in the JSON report.
 */
function relativeAimRows(report, aims) {
  const { waggle, portkey = NO_PEER } = report.legs;
  const added = { portkey: NO_PEER.added, ...report.added };
  const rpsAim = aims.rpsTimesPortkey * portkey.figures.requestsPerSecond;
  const rps = waggle.figures.requestsPerSecond;
  const p50Aim = aims.addedP50TimesPortkey * added.portkey.p50Ms;
  const p50 = added.waggle.p50Ms;
  const firstText = added.waggle.firstTextP99Ms;
  const by = (met, text) => `${met ? 'met' : 'missed'} by ${text}`;
  return [
    {
      figure: `prompt invoke req/s at ${THROUGHPUT_CONNECTIONS} conn`,
      value: `${fmt(rps, 0)} (${fmt(ratio(rps, portkey.figures.requestsPerSecond), 2)}× Portkey's ${fmt(portkey.figures.requestsPerSecond, 0)})`,
      aim: `≥ ${aims.rpsTimesPortkey}× Portkey's = ${fmt(rpsAim, 0)}`,
      met: rps >= rpsAim,
      margin: by(rps >= rpsAim, `${fmt(Math.abs(rps - rpsAim), 0)} req/s (${fmt(ratio(rps, rpsAim), 2)}× the aim)`),
    },
    {
      figure: 'added p50, 1 conn',
      value: `${ms(p50, 3)} ms`,
      aim: `≤ ${aims.addedP50TimesPortkey === 1 ? '' : `${aims.addedP50TimesPortkey}× `}Portkey's = ${ms(p50Aim, 3)} ms`,
      met: p50 <= p50Aim,
      margin: by(p50 <= p50Aim, `${ms(Math.abs(p50 - p50Aim), 3)} ms`),
    },
    {
      figure: 'added first text event p99',
      value: `${ms(firstText, 3)} ms`,
      aim: `< ${aims.addedFirstTextP99Ms} ms`,
      met: firstText < aims.addedFirstTextP99Ms,
      margin: by(firstText < aims.addedFirstTextP99Ms, `${ms(Math.abs(firstText - aims.addedFirstTextP99Ms), 3)} ms`),
    },
  ];
}

/**
 * The OpenAI-compatible route beside the native route (same deployment, same rounds): each figure
 * of both, OpenAI / native, and for throughput and added p50 the aim (within 10 %), met or missed
 * and by how much. `openai.rows` in the JSON report.
 */
function openAiRows(report) {
  const { waggle, openai } = report.legs;
  const native = waggle.figures;
  const compat = openai.figures;
  const { added } = report;
  const by = (met, text) => `${met ? 'met' : 'missed'} by ${text}`;
  const rpsAim = AIMS_OPENAI.rpsTimesNative * native.requestsPerSecond;
  const p50Aim = AIMS_OPENAI.addedP50TimesNative * added.waggle.p50Ms;
  const cpu = (name) => [native.cpuMsPerRequest[name], compat.cpuMsPerRequest[name]];
  const timeRow = (figure, [a, b], aim) => ({
    figure,
    native: `${ms(a, 3)} ms`,
    openai: `${ms(b, 3)} ms`,
    ratio: ratio(b, a),
    difference: `${b >= a ? '+' : '−'}${ms(Math.abs(b - a), 3)} ms`,
    ...aim,
  });
  return [
    {
      figure: `req/s at ${THROUGHPUT_CONNECTIONS} conn`,
      native: fmt(native.requestsPerSecond, 0),
      openai: fmt(compat.requestsPerSecond, 0),
      ratio: ratio(compat.requestsPerSecond, native.requestsPerSecond),
      difference: `${compat.requestsPerSecond >= native.requestsPerSecond ? '+' : '−'}${fmt(Math.abs(compat.requestsPerSecond - native.requestsPerSecond), 0)}`,
      aim: `≥ ${AIMS_OPENAI.rpsTimesNative}× native = ${fmt(rpsAim, 0)}`,
      met: compat.requestsPerSecond >= rpsAim,
      margin: by(compat.requestsPerSecond >= rpsAim, `${fmt(Math.abs(compat.requestsPerSecond - rpsAim), 0)} req/s`),
    },
    timeRow('added p50, 1 conn', [added.waggle.p50Ms, added.openai.p50Ms], {
      aim: `≤ ${AIMS_OPENAI.addedP50TimesNative}× native = ${ms(p50Aim, 3)} ms`,
      met: added.openai.p50Ms <= p50Aim,
      margin: by(added.openai.p50Ms <= p50Aim, `${ms(Math.abs(added.openai.p50Ms - p50Aim), 3)} ms`),
    }),
    timeRow('added p99, 1 conn', [added.waggle.p99Ms, added.openai.p99Ms]),
    timeRow('added first text event p50, streamed', [added.waggle.firstTextP50Ms, added.openai.firstTextP50Ms]),
    timeRow('added first text event p99, streamed', [added.waggle.firstTextP99Ms, added.openai.firstTextP99Ms]),
    timeRow(`CPU per request, gateway, ${THROUGHPUT_CONNECTIONS} conn`, cpu('gateway')),
    timeRow(`CPU per request, invocation, ${THROUGHPUT_CONNECTIONS} conn`, cpu('invocation')),
    timeRow(`CPU per request on the path, ${THROUGHPUT_CONNECTIONS} conn`, [native.cpuMsPerRequestPath, compat.cpuMsPerRequestPath]),
  ];
}

function markdown(report) {
  const legs = Object.values(report.legs);
  const lines = [
    `${report.rounds} interleaved round${report.rounds === 1 ? '' : 's'}; fake provider latency ${report.fake.latencyMs} ms, ${report.fake.tokenDelayMs} ms between streamed fragments; ` +
      `${report.portkey.version ? `Portkey ${report.portkey.version}` : 'Portkey not run (--portkey off)'}; Waggle as \`npm run up\` runs it (LOG_LEVEL ${report.waggleDefaults.logLevel}, tracing ${report.waggleDefaults.tracing}).`,
    '',
    `| leg | p50 / p99 at 1 conn (ms) | added p50 / p99 (ms) | req/s at 1 conn | req/s at ${THROUGHPUT_CONNECTIONS} conn (rounds) | first event p50 / p99 (ms) | added first event p50 / p99 (ms) | first text p50 / p99 (ms) | added first text p50 / p99 (ms) | failed: requests / streams |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const leg of legs) {
    const f = leg.figures;
    const a = report.added[leg.key];
    const streaming = f.streams - f.streamsFailed > 0;
    lines.push(
      `| ${leg.label} | ${ms(f.latencyMs.p50, 3)} / ${ms(f.latencyMs.p99, 3)} | ${a ? `${ms(a.p50Ms, 3)} / ${ms(a.p99Ms, 3)}` : '–'} | ${fmt(f.requestsPerSecond1, 0)} | ` +
        `${fmt(f.requestsPerSecond, 0)} (${f.requestsPerSecondRounds.map((rps) => fmt(rps, 0)).join(', ')}) | ` +
        `${streaming ? `${ms(f.firstEventMs.p50, 3)} / ${ms(f.firstEventMs.p99, 3)}` : 'failed'} | ${a && streaming ? `${ms(a.firstEventP50Ms, 3)} / ${ms(a.firstEventP99Ms, 3)}` : '–'} | ` +
        `${streaming ? `${ms(f.firstTextMs.p50, 3)} / ${ms(f.firstTextMs.p99, 3)}` : 'failed'} | ${a && streaming ? `${ms(a.firstTextP50Ms, 3)} / ${ms(a.firstTextP99Ms, 3)}` : '–'} | ` +
        `${leg.failed} / ${f.streamsFailed} of ${f.streams} |`,
    );
  }
  lines.push(
    '',
    `CPU time per request at ${THROUGHPUT_CONNECTIONS} connections (ms, all rounds; "path" sums the leg's own processes, the fake provider and the load generator apart):`,
    '',
    `| leg | ${PROC_COLUMNS.join(' | ')} | **path** | load generator |`,
    `| --- |${' ---: |'.repeat(PROC_COLUMNS.length + 2)}`,
  );
  for (const leg of legs) {
    const c = leg.figures.cpuMsPerRequest;
    lines.push(
      `| ${leg.label} | ${PROC_COLUMNS.map((name) => ms(c[name], 3)).join(' | ')} | **${ms(leg.figures.cpuMsPerRequestPath, 3)}** | ${ms(c.bench, 3)} |`,
    );
  }
  const { waggle, traced } = report.legs;
  if (traced) {
    const cost = traced.figures.cpuMsPerRequestPath - waggle.figures.cpuMsPerRequestPath;
    lines.push(
      '',
      `Tracing with an exporter set costs ${ms(cost, 3)} ms of CPU per request on the path (${ms(traced.figures.cpuMsPerRequestPath, 3)} against ${ms(waggle.figures.cpuMsPerRequestPath, 3)} with spans not exported), ` +
        `${fmt((cost / waggle.figures.cpuMsPerRequestPath) * 100, 1)} %; at 1 connection it adds ${ms(traced.figures.latencyMs.p50 - waggle.figures.latencyMs.p50, 3)} ms at p50.`,
    );
  }
  const r = report.ratios;
  lines.push(
    '',
    'Waggle / Portkey:',
    '',
    '| p50 | p99 | added p50 | added p99 | req/s | first event p50 | first event p99 | CPU per request |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.addedP50, 2)} | ${fmt(r.addedP99, 2)} | ${fmt(r.requestsPerSecond, 3)} | ${fmt(r.firstEventP50, 2)} | ${fmt(r.firstEventP99, 2)} | ${fmt(r.cpuMsPerRequest, 2)} |`,
    '',
    '| aim (issue 10) | Waggle | aim | | margin |',
    '| --- | ---: | ---: | --- | --- |',
    ...report.aims.map((a) => `| ${a.figure} | ${a.value} | ${a.aim} | ${a.met ? 'met' : '**missed**'} | ${a.met ? '' : a.margin} |`),
    '',
    '| aim (issue 22) | Waggle | aim | | by how much |',
    '| --- | ---: | ---: | --- | --- |',
    ...report.aims22.map((a) => `| ${a.figure} | ${a.value} | ${a.aim} | ${a.met ? 'met' : '**missed**'} | ${a.margin} |`),
    '',
    '| aim (issue 39) | Waggle | aim | | by how much |',
    '| --- | ---: | ---: | --- | --- |',
    ...report.aims39.map((a) => `| ${a.figure} | ${a.value} | ${a.aim} | ${a.met ? 'met' : '**missed**'} | ${a.margin} |`),
    '',
    'The OpenAI-compatible route (`POST /openai/v1/chat/completions`, model `prompt/bench/default`) beside the native route (`POST /v1/prompt/invoke`), same deployment, same rounds:',
    '',
    '| figure | native | OpenAI-compatible | OpenAI / native | difference | aim | |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...report.openai.rows.map(
      (a) =>
        `| ${a.figure} | ${a.native} | ${a.openai} | ${fmt(a.ratio, 3)} | ${a.difference} | ${a.aim ?? ''} | ${a.aim ? `${a.met ? '' : '**'}${a.margin}${a.met ? '' : '**'}` : ''} |`,
    ),
    '',
    'Per round (order rotates each round): p50 at 1 conn (ms) and req/s at 64 conn:',
    '',
    `| round | ${legs.map((leg) => `${leg.key} p50`).join(' | ')} | ${legs.map((leg) => `${leg.key} req/s`).join(' | ')} |`,
    `| ---: |${' ---: |'.repeat(legs.length * 2)}`,
  );
  for (let i = 0; i < report.rounds; i += 1) {
    lines.push(
      `| ${i + 1} | ${legs.map((leg) => ms(leg.figures.latencyP50Rounds[i], 3)).join(' | ')} | ${legs.map((leg) => fmt(leg.figures.requestsPerSecondRounds[i], 0)).join(' | ')} |`,
    );
  }
  lines.push('', `Portkey's streaming: ${report.portkey.streaming}`);
  if (report.traffic) {
    const { plain, streamed } = report.traffic;
    lines.push(
      '',
      `NATS messages per Waggle request (${plain.requests} requests and ${streamed.requests} streamed ones, one at a time; net of the idle rate):`,
      '',
      '| subject | per request | bytes per request | per streamed request | bytes per streamed request | idle (per s) |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
    );
    const subjects = [...new Set([...Object.keys(plain.subjects), ...Object.keys(streamed.subjects)])].sort();
    const zero = { messages: 0, bytes: 0, idlePerSecond: 0 };
    for (const name of subjects) {
      const p = plain.subjects[name] ?? zero;
      const s = streamed.subjects[name] ?? zero;
      lines.push(
        `| \`${name}\` | ${ms(p.messages)} | ${ms(p.bytes, 0)} | ${ms(s.messages)} | ${ms(s.bytes, 0)} | ${ms(p.idlePerSecond ?? s.idlePerSecond)} |`,
      );
    }
    lines.push(
      `| **total** | **${ms(plain.messages)}** | ${ms(plain.bytes, 0)} | **${ms(streamed.messages)}** | ${ms(streamed.bytes, 0)} | |`,
      '',
      'Redis commands per Waggle request (INFO commandstats, net of the idle rate):',
      '',
      '| command | per request | per streamed request | idle (per s) |',
      '| --- | ---: | ---: | ---: |',
    );
    const commands = [...new Set([...Object.keys(plain.commandsByName), ...Object.keys(streamed.commandsByName)])].sort();
    for (const name of commands) {
      const p = plain.commandsByName[name] ?? { calls: 0 };
      const s = streamed.commandsByName[name] ?? { calls: 0 };
      lines.push(`| \`${name}\` | ${ms(p.calls)} | ${ms(s.calls)} | ${ms(p.idlePerSecond ?? s.idlePerSecond)} |`);
    }
    lines.push(
      `| **total** | **${ms(plain.commands)}** | **${ms(streamed.commands)}** | |`,
      '',
      'Commands a Lua script runs count too (the meter is one EVALSHA that runs GET and INCR): the round trips are the other commands.',
    );
  }
  lines.push(
    '',
    `Each round: ${report.durationS} s of sequential requests at 1 connection, ${report.durationS} s at ${THROUGHPUT_CONNECTIONS} connections (autocannon) and ${report.streams} sequential streams per leg, ` +
      `each run started once the processes had gone quiet (under 0.1 cores), after a warm-up of ${WARMUP.duration} s at ${WARMUP.connections} connections and ${WARMUP.streams} streams per leg. ` +
      `Node ${report.machine.node}, ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.date}; load average at start ${report.machine.loadAverage}, at end ${report.machine.loadAverageAtEnd}.`,
  );
  if (report.leanNote) lines.push('', report.leanNote);
  if (report.infraMissing.length)
    lines.push('', `Not accounted (no process listening on this machine): ${report.infraMissing.join(', ')}.`);
  if (report.otherProcesses.length) {
    lines.push(
      '',
      `Warning: other Waggle apps or benchmarks were running at the start: ${report.otherProcesses.map((o) => `${o.what} (pid ${o.pid})`).join(', ')}.`,
    );
  }
  if (report.failures.length) lines.push('', 'Failures:', ...report.failures.map((failure) => `- ${failure}`));
  return lines.join('\n');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  exitUnlessBuilt(ENTRIES);
  const info = machine();
  const others = otherWaggleProcesses();
  if (others.length) {
    log(
      `warning: other Waggle apps or benchmarks are running (${others.map((o) => `${o.what} pid ${o.pid}`).join(', ')}); apps share NATS queue groups with this bench and every process competes for the cores`,
    );
  }
  if (existsSync(join(ROOT, '.env'))) log('warning: .env exists; the apps read it, so the Waggle leg may not run with the defaults');
  const portkeyVersion = options.portkey === 'on' ? ensurePortkey() : null;
  const defaults = appEnv(false);
  const cliEnv = { ...defaults, LOG_LEVEL: 'warn' };
  const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  log('running migrations (node dist/tools/migrate/src/main.js)');
  runNode(ENTRIES.migrate, [], cliEnv, 'migrations');
  const infra = infraProcesses({ natsUrl, redisUrl, databaseUrl: defaults.DATABASE_URL });
  if (infra.missing.length) log(`warning: no local process found for ${infra.missing.join(', ')}; their CPU is not accounted`);

  const tmp = mkdtempSync(join(tmpdir(), 'waggle-bench-invoke-'));
  const procs = [];
  const stops = [];
  let catalogLoaded = false;
  let cleaning = null;
  const failures = [];
  const stop = async (proc) => {
    procs.splice(procs.indexOf(proc), 1);
    const how = { process: proc.name, ...(await stopProcess(proc)) };
    stops.push(how);
    return how;
  };
  const cleanup = () => {
    cleaning ??= (async () => {
      if (catalogLoaded) {
        // Back to the shipped catalog while the catalog service is still up.
        catalogLoaded = !restoreShippedCatalog(ENTRIES.cli, cliEnv, failures);
      }
      await Promise.all([...procs].map(stop));
      rmSync(tmp, { recursive: true, force: true });
    })();
    return cleaning;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      log(`${signal}: restoring the catalog and stopping the processes`);
      void cleanup().then(() => {
        for (const failure of failures) log(`FAILED: ${failure}`);
        process.exit(130);
      });
    });
  }

  /** catalog, invocation and gateway with `env`, ready (the gateway sees the other two up). */
  const startWaggle = async (env, fakePort) => {
    const stack = {};
    for (const name of ['catalog', 'invocation', 'gateway']) {
      const port = await freePort();
      const extra =
        name === 'invocation' ? { FAKE_BASE_URL: `http://127.0.0.1:${fakePort}/v1`, FAKE_API_KEY: 'bench', PROVIDER_MAX_RETRIES: '0' } : {};
      stack[name] = Object.assign(startProcess(name, ENTRIES[name], { ...env, PORT: String(port), ...extra }), { port });
      procs.push(stack[name]);
    }
    for (const proc of Object.values(stack))
      await waitFor(proc, 'live', async () => (await httpRequest(proc.port, '/health/live')).status === 200);
    await waitForGatewayToSee(stack.gateway, ['catalog', 'invocation']);
    log(
      `Waggle up: ${Object.values(stack)
        .map((p) => `${p.name} pid ${p.pid} :${p.port}`)
        .join(', ')}`,
    );
    return stack;
  };

  let report;
  try {
    const fakePort = await freePort();
    const fake = startProcess('fake-provider', ENTRIES.fake, {
      ...cliEnv,
      FAKE_PROVIDER_PORT: String(fakePort),
      FAKE_PROVIDER_HOST: '127.0.0.1',
      FAKE_PROVIDER_LATENCY_MS: String(options.latencyMs),
      FAKE_PROVIDER_TOKEN_DELAY_MS: String(options.tokenDelayMs),
    });
    procs.push(fake);
    // Portkey as `npx @portkey-ai/gateway` starts it, on our port; nothing of ours in its env
    // (REDIS_CONNECTION_STRING would turn on its cache).
    const portkeyPort = await freePort();
    const portkey =
      portkeyVersion &&
      Object.assign(
        startProcess('portkey', PORTKEY_ENTRY, { PATH: process.env.PATH, HOME: process.env.HOME }, [], [`--port=${portkeyPort}`]),
        { port: portkeyPort },
      );
    if (portkey) procs.push(portkey);
    await waitFor(fake, 'listening', async () => (await httpRequest(fakePort, '/_fake/requests')).status === 200);
    if (portkey) await waitFor(portkey, 'listening', async () => (await httpRequest(portkeyPort, '/')).status === 200);
    log(
      `fake provider pid ${fake.pid} :${fakePort}, ${portkey ? `Portkey ${portkeyVersion} pid ${portkey.pid} :${portkeyPort}` : 'no Portkey (--portkey off)'}`,
    );
    let stack = await startWaggle(defaults, fakePort);

    const catalogFile = join(tmp, 'models.yaml');
    writeFileSync(catalogFile, benchCatalogYaml('2099.9.1', MODEL));
    log('loading the shipped catalog plus fake-chat (cli catalog load)');
    catalogLoaded = true; // restore even if the load half-worked
    const loaded = JSON.parse(runNode(ENTRIES.cli, ['catalog', 'load', '--file', catalogFile, '--json'], cliEnv, 'catalog load'));
    if (!loaded.loaded) throw new Error(`catalog load did not load: ${JSON.stringify(loaded)}`);

    log('creating a workspace on the enterprise plan and applying the bench prompt (cli workspace create, apply)');
    const created = JSON.parse(
      runNode(ENTRIES.cli, ['workspace', 'create', '--name', 'bench-invoke', '--plan', 'enterprise', '--json'], cliEnv, 'workspace create'),
    );
    if (typeof created.api_key !== 'string') throw new Error(`workspace create printed no api_key: ${JSON.stringify(created)}`);
    const promptFile = join(tmp, 'prompts.yaml');
    writeFileSync(promptFile, benchPromptYaml('bench', MODEL));
    runNode(ENTRIES.cli, ['apply', '-f', promptFile, '--workspace', created.workspace_id, '--json'], cliEnv, 'apply');

    const messages = [{ role: 'user', content: QUESTION }];
    /** A Chat Completions request (the provider's and Waggle's OpenAI-compatible route): whole, or streamed as the provider layer (AI SDK, openai-compatible, includeUsage) asks for it. */
    const chatCompletion = (path, request) => ({
      path,
      body: JSON.stringify(request),
      streamBody: JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } }),
      responseText: (answer) => answer?.choices?.[0]?.message?.content,
      textOf: (event) => event?.choices?.[0]?.delta?.content,
    });
    const chat = chatCompletion('/v1/chat/completions', { model: MODEL, messages });
    const inputs = { question: QUESTION };
    const invokeBody = { deployment: 'bench', variant: 'default', inputs };
    /** Waggle's two public routes to the bench deployment's variant: the native invoke, and the OpenAI-compatible chat completion (its model id, the variables in `inputs`, one user message). */
    const routes = {
      native: {
        path: '/v1/prompt/invoke',
        body: JSON.stringify(invokeBody),
        streamBody: JSON.stringify({ ...invokeBody, streaming: true }),
        responseText: (answer) => answer?.response,
        textOf: (event) => (event?.type === 'response' ? event.response : undefined),
      },
      openai: chatCompletion('/openai/v1/chat/completions', { model: 'prompt/bench/default', inputs, messages }),
    };
    const waggleLeg = (key, label, gateway, route = routes.native) => ({
      key,
      label,
      port: gateway.port,
      headers: { authorization: `Bearer ${created.api_key}` },
      ...route,
      pathProcs: WAGGLE_PATH,
    });
    const legs = {
      direct: {
        key: 'direct',
        label: 'direct (fake provider)',
        port: fakePort,
        headers: { authorization: 'Bearer bench' },
        ...chat,
        pathProcs: [],
      },
      ...(portkey && {
        portkey: {
          key: 'portkey',
          label: `Portkey ${portkeyVersion}`,
          port: portkeyPort,
          headers: {
            authorization: 'Bearer bench',
            'x-portkey-provider': 'openai',
            'x-portkey-custom-host': `http://127.0.0.1:${fakePort}/v1`,
          },
          ...chat,
          pathProcs: ['portkey'],
        },
      }),
      waggle: waggleLeg('waggle', 'Waggle (npm run up defaults)', stack.gateway),
      openai: waggleLeg('openai', 'Waggle, OpenAI-compatible route', stack.gateway, routes.openai),
    };
    const prepare = (leg) =>
      Object.assign(leg, { payload: Buffer.from(leg.body), streamPayload: Buffer.from(leg.streamBody), rounds: [], failed: 0 });
    Object.values(legs).forEach(prepare);
    const checkAnswers = async (leg) => {
      const agent = new Agent({ keepAlive: false });
      const answer = await timeRequest(leg, agent);
      if (!answer.ok) throw new Error(`${leg.label} did not answer as expected: ${answer.error}`);
      const stream = await timeStream(leg, agent);
      agent.destroy();
      log(`${leg.label}: answers ${JSON.stringify(EXPECTED_RESPONSE)}; streaming ${stream.ok ? 'works' : `fails: ${stream.error}`}`);
      return stream;
    };
    for (const leg of Object.values(legs)) {
      const stream = await checkAnswers(leg);
      if (stream.ok) continue;
      if (leg.key !== 'portkey') throw new Error(`${leg.label}: streaming failed: ${stream.error}`);
      // Not one failure by chance: a few more, and if none works its streams are left out.
      const again = await sequentialRun(leg, timeStream, { count: STREAM_FAILURES_TO_GIVE_UP, procs: [] });
      if (again.failed < again.requests) continue;
      leg.streamingBroken = { ...stream, tried: again.requests + 1 };
      // What it logged about it: its last error line and the frames under it, without terminal codes.
      const output = portkey
        .output()
        .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
        .trim()
        .split('\n');
      const errorLine = output.findLastIndex((line) => !/^\s+at /.test(line));
      leg.streamingOutput = output
        .slice(errorLine, errorLine + 4)
        .map((line) => line.trim())
        .join(' | ');
    }

    let accounted = [...procs, ...infra.procs].map(({ name, pid, tree }) => ({ name, pid, tree }));
    const quiet = async () => {
      const cores = await settle(accounted, { maxCores: 0.1, windowMs: 1_000 });
      if (cores >= 0.1) log(`warning: the processes still used ${fmt(cores)} cores after waiting 10 s for them to go quiet`);
    };
    const throughput = (leg, connections, duration) =>
      cannon({
        url: `http://127.0.0.1:${leg.port}${leg.path}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...leg.headers },
        body: leg.body,
        connections,
        duration,
        procs: accounted,
      });
    const streams = (leg, count) =>
      sequentialRun(leg, timeStream, {
        count,
        procs: accounted,
        giveUpAfter: leg.key === 'portkey' ? STREAM_FAILURES_TO_GIVE_UP : Infinity,
      });
    const warmUp = async (leg) => {
      log(`${leg.label}: warm-up ${WARMUP.duration} s at ${WARMUP.connections} connections, ${WARMUP.streams} streams`);
      leg.warmup = await throughput(leg, WARMUP.connections, WARMUP.duration);
      if (leg.warmup.failed) leg.failed += leg.warmup.failed;
      if (!leg.streamingBroken) leg.streamWarmup = await streams(leg, WARMUP.streams);
    };
    /** One round of `order`: latency, then throughput, then streaming, each leg in turn. */
    const round = async (order, number) => {
      const results = Object.fromEntries(order.map((leg) => [leg.key, {}]));
      for (const leg of order) {
        await quiet();
        const run = await sequentialRun(leg, timeRequest, { durationS: options.duration, procs: accounted });
        results[leg.key].latency = run;
        leg.failed += run.failed;
        log(
          `round ${number}, ${leg.label}: 1 conn p50 ${ms(summarize(run.samples.totalMs).p50, 3)} ms, p99 ${ms(summarize(run.samples.totalMs).p99, 3)} ms`,
        );
      }
      for (const leg of order) {
        await quiet();
        const run = await throughput(leg, THROUGHPUT_CONNECTIONS, options.duration);
        results[leg.key].throughput = run;
        leg.failed += run.failed;
        log(`round ${number}, ${leg.label}: ${fmt(run.requestsPerSecond, 0)} req/s at ${THROUGHPUT_CONNECTIONS} conn`);
      }
      for (const leg of order) {
        if (leg.streamingBroken) continue;
        await quiet();
        const run = await streams(leg, options.streams);
        results[leg.key].streaming = run;
        log(`round ${number}, ${leg.label}: first event p50 ${ms(summarize(run.samples.firstEventMs).p50, 3)} ms, ${run.failed} failed`);
      }
      for (const leg of order) leg.rounds.push(results[leg.key]);
    };
    const rotate = (list, by) => list.map((_, i) => list[(i + by) % list.length]);

    for (const leg of Object.values(legs)) await warmUp(leg);
    // The rounds' order, rotated from round to round, keeps the two Waggle legs apart within a
    // phase: a Waggle leg measured right after the other finds the stack warm, and came out
    // 10–25 % faster in trial runs whichever route it was (docs/benchmarks/invoke.md, "The
    // OpenAI-compatible route").
    const compared = [legs.direct, legs.waggle, legs.portkey, legs.openai].filter(Boolean);
    for (let r = 0; r < options.rounds; r += 1) await round(rotate(compared, r), r + 1);

    log('counting NATS messages and Redis commands per Waggle request');
    const counted = await countTraffic(legs.waggle, { natsUrl, redisUrl, quiet });
    const traffic = { plain: perRequest(counted.plain, counted.idle), streamed: perRequest(counted.streamed, counted.idle), raw: counted };

    // Legs measured after the rounds, each alone on a restarted catalog, invocation and gateway:
    // another stack on the same NATS would share the queue groups.
    const alone = [];
    if (options.exporter === 'on') {
      const sinkPort = await freePort();
      // An OTLP/HTTP collector stand-in that reads and drops every export, in a process of its own
      // (not accounted: a collector's CPU is not Waggle's).
      const sink = startProcess('otlp-sink', 'scripts/bench/otlp-sink.mjs', { PATH: process.env.PATH, OTLP_SINK_PORT: String(sinkPort) });
      procs.push(sink);
      await waitFor(sink, 'live', async () => (await httpRequest(sinkPort, '/health')).status === 200);
      alone.push({
        key: 'traced',
        label: 'Waggle, spans exported (OTLP/HTTP)',
        env: { ...appEnv(false), OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}` },
      });
    }
    if (options.lean === 'on') alone.push({ key: 'lean', label: 'Waggle, LOG_LEVEL=warn, tracing off', env: appEnv(true) });
    let leanNote = null;
    for (const leg of alone) {
      log(`restarting Waggle: ${leg.label}`);
      for (const proc of Object.values(stack)) await stop(proc);
      stack = await startWaggle(leg.env, fakePort);
      legs[leg.key] = prepare(waggleLeg(leg.key, leg.label, stack.gateway));
      accounted = [...procs, ...infra.procs].map(({ name, pid, tree }) => ({ name, pid, tree }));
      await checkAnswers(legs[leg.key]);
      await warmUp(legs[leg.key]);
      for (let r = 0; r < options.rounds; r += 1) await round([legs[leg.key]], r + 1);
    }
    if (alone.length > 0) {
      leanNote =
        `${alone.map((leg) => `"${leg.label}"`).join(' and ')} ran after the interleaved rounds, each alone (${options.rounds} round${options.rounds === 1 ? '' : 's'} of the same three runs), ` +
        'on a restarted catalog, invocation and gateway: two stacks on one NATS would share its queue groups.';
    }

    for (const leg of Object.values(legs)) {
      for (const [phase, run] of [
        ['streaming warm-up', leg.streamWarmup],
        ...leg.rounds.map((r, i) => [`streaming, round ${i + 1}`, r.streaming]),
      ]) {
        if (run?.failed && leg.key !== 'portkey')
          failures.push(`${leg.label}, ${phase}: ${run.failed} of ${run.requests} failed: ${run.failures.join('; ')}`);
      }
      if (leg.failed) failures.push(`${leg.label}: ${leg.failed} non-streamed requests failed, timed out or answered non-2xx`);
    }

    for (const leg of Object.values(legs)) leg.figures = aggregate(leg);
    const addedOver = (leg) => {
      const d = legs.direct.figures;
      const f = leg.figures;
      return {
        p50Ms: f.latencyMs.p50 - d.latencyMs.p50,
        p99Ms: f.latencyMs.p99 - d.latencyMs.p99,
        firstEventP50Ms: f.firstEventMs.p50 - d.firstEventMs.p50,
        firstEventP99Ms: f.firstEventMs.p99 - d.firstEventMs.p99,
        firstTextP50Ms: f.firstTextMs.p50 - d.firstTextMs.p50,
        firstTextP99Ms: f.firstTextMs.p99 - d.firstTextMs.p99,
      };
    };
    const added = Object.fromEntries(
      Object.values(legs)
        .filter((leg) => leg.key !== 'direct')
        .map((leg) => [leg.key, addedOver(leg)]),
    );
    const w = legs.waggle.figures;
    const p = (legs.portkey ?? NO_PEER).figures;
    const pk = legs.portkey;
    const portkeyStreaming = !pk
      ? 'not run (--portkey off)'
      : pk.streamingBroken
        ? `all ${pk.streamingBroken.tried} streams tried failed, the first with ${pk.streamingBroken.error} after ${ms(pk.streamingBroken.totalMs, 3)} ms; not measured further. It logged: \`${pk.streamingOutput}\``
        : p.streamsFailed
          ? `${p.streamsFailed} of ${p.streams} streams failed: ${p.streamFailures.join('; ')}`
          : `works: all ${p.streams} streams complete.`;
    const strip = ({ rounds, warmup, streamWarmup, ...leg }) => {
      const noSamples = (run) => (run ? (({ samples: _s, ...rest }) => rest)(run) : run);
      return {
        key: leg.key,
        label: leg.label,
        pathProcs: leg.pathProcs,
        failed: leg.failed,
        figures: leg.figures,
        streamingBroken: leg.streamingBroken,
        warmup,
        streamWarmup: noSamples(streamWarmup),
        rounds: rounds.map((r) => ({ latency: noSamples(r.latency), throughput: r.throughput, streaming: noSamples(r.streaming) })),
      };
    };
    report = {
      rounds: options.rounds,
      durationS: options.duration,
      streams: options.streams,
      warmup: WARMUP,
      throughputConnections: THROUGHPUT_CONNECTIONS,
      fake: { latencyMs: options.latencyMs, tokenDelayMs: options.tokenDelayMs },
      portkey: { version: portkeyVersion, streaming: portkeyStreaming },
      waggleDefaults: { logLevel: 'info (default)', tracing: 'on, spans not exported (no OTLP endpoint)' },
      machine: info,
      otherProcesses: others,
      infraProcesses: infra.procs,
      infraMissing: infra.missing,
      legs: Object.fromEntries(Object.entries(legs).map(([key, leg]) => [key, strip(leg)])),
      added,
      ratios: {
        p50: ratio(w.latencyMs.p50, p.latencyMs.p50),
        p99: ratio(w.latencyMs.p99, p.latencyMs.p99),
        addedP50: ratio(added.waggle.p50Ms, (added.portkey ?? NO_PEER.added).p50Ms),
        addedP99: ratio(added.waggle.p99Ms, (added.portkey ?? NO_PEER.added).p99Ms),
        requestsPerSecond: ratio(w.requestsPerSecond, p.requestsPerSecond),
        firstEventP50: ratio(w.firstEventMs.p50, p.firstEventMs.p50),
        firstEventP99: ratio(w.firstEventMs.p99, p.firstEventMs.p99),
        firstTextP50: ratio(w.firstTextMs.p50, p.firstTextMs.p50),
        firstTextP99: ratio(w.firstTextMs.p99, p.firstTextMs.p99),
        cpuMsPerRequest: ratio(w.cpuMsPerRequestPath, p.cpuMsPerRequestPath),
      },
      traffic,
      leanNote,
      failures,
    };
    report.aims = aimRows(report);
    report.aims22 = relativeAimRows(report, AIMS_22);
    report.aims39 = relativeAimRows(report, AIMS_39);
    report.openai = { aims: AIMS_OPENAI, rows: openAiRows(report) };
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    await cleanup();
    for (const how of stops) {
      // Portkey has no SIGTERM handler: Node's default ends it by the signal.
      const clean = how.code === 0 || (how.process === 'portkey' && how.signal === 'SIGTERM');
      if (how.alreadyExited) failures.push(`${how.process} exited on its own during the bench (code ${how.code}, signal ${how.signal})`);
      else if (how.killed) failures.push(`${how.process} still running ${EXIT_TIMEOUT_MS / 1000} s after SIGTERM (killed)`);
      else if (!clean) failures.push(`${how.process} exited with ${how.code ?? how.signal} after SIGTERM`);
    }
    if (report) report.stops = stops;
  }

  if (!report) {
    for (const failure of failures) log(`FAILED: ${failure}`);
    process.exit(1);
  }
  report.machine.loadAverageAtEnd = loadAverage();
  if (options.jsonFile) writeFileSync(options.jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${markdown(report)}\n`);
  for (const failure of failures) log(`FAILED: ${failure}`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((error) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
