#!/usr/bin/env node
// Overload is shed, not queued (docs/benchmarks/overload.md; docs/reliability.md, "Overload is shed, not queued"): the
// gateway driven well past its capacity, and what happens to the requests it takes, to memory
// and to the health probes.
//
//   npm run build && npm run bench:overload [-- --seconds 60] [--factor 3] [--capacity-seconds 20]
//       [--connections 64] [--shedding on|off] [--env NAME=VALUE]... [--database-url URL] [--json] [--json-file PATH]
//
// `--env` sets a variable of every app (repeatable), e.g. `--env MAX_HTTP_IN_FLIGHT=512` to try another bound.
//
// The stack: the fake provider (a process, answering at once), catalog, invocation and gateway
// from dist/ on free loopback ports with their default overload settings (`--shedding off`: the
// bounds raised out of reach and the event-loop check off, as before shedding existed), against
// a Redis and a NATS it starts itself on free ports (as the soak does: another stack on the
// machine's servers would share the queue groups) and its own database on the running
// PostgreSQL (`--database-url`, default waggle_bench); a workspace on the enterprise plan and
// one prompt deployment made with the CLI. Every request is a sync prompt invoke, sent with undici from this
// process. Then:
// 1. warm-up: 5 s in a closed loop at 8 connections;
// 2. capacity: `--capacity-seconds` in a closed loop at `--connections`; capacity is the rate of
//    2xx answers, and its p99 the yardstick of the aim;
// 3. overload: `--seconds` in an open loop at `--factor` × capacity, a fixed arrival rate: each
//    request leaves at its scheduled moment whatever the others do, on a pool of up to
//    `--sockets` connections, and its latency counts from that moment (a request the generator
//    sent late is charged the lateness, which is reported apart);
// 4. the requests still out are waited for (up to 60 s).
// All along, a worker thread (its own event loop, so the load generator does not delay it)
// probes the gateway's and invocation's /health/live and /health/ready every 200 ms on a fresh
// connection each, as a kubelet does; every app's RSS is read from /proc every second; each
// app's pid and /health/live `started_at` are compared before and after (no restart). Shed
// requests are told apart by their answer (a 503 upstream_request_failed whose details name a
// reason: `details.pattern` when a service refused), and the apps' waggle_overload_shed_total
// says which bound acted. Markdown on stdout (JSON with --json), progress on stderr. Exits 1
// when something did not start, a process died or was restarted, or a process did not exit
// cleanly; missed aims are reported, not failed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { request as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { parseArgs as parseCommandLine } from 'node:util';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';
import {
  cpuBetween,
  cpuSnapshot,
  distEntries,
  exitUnlessBuilt,
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
  startPromptStack,
  stopAll,
  summarize,
} from './bench-lib.mjs';

const ENTRIES = distEntries('migrate', 'cli', 'fake', 'catalog', 'invocation', 'gateway');
const OWN_INFRASTRUCTURE = 'dist/libs/testing/src/own-infrastructure.js';
const MODEL = 'fake-overload-bench';
const DEPLOYMENT = 'overload-bench';
const WARMUP = { connections: 8, seconds: 5 };
const PROBE_INTERVAL_MS = 200;
const PROBE_TIMEOUT_MS = 10_000;
const RSS_INTERVAL_MS = 1_000;
const REQUEST_TIMEOUT_MS = 120_000;
const DRAIN_TIMEOUT_MS = 60_000;
const AIMS = { acceptedP99TimesCapacity: 3, probeMaxMs: 1_000, rssGrowth: 0.1 };
/** Raised out of reach: the apps as they were before overload was shed. */
const SHEDDING_OFF = { MAX_HTTP_IN_FLIGHT: '1000000', MAX_RPC_IN_FLIGHT: '1000000', MAX_EVENT_LOOP_DELAY_MS: '0' };
/** The apps every report names, in table order (the fake provider, a test double, is watched but not judged). */
const APPS = ['gateway', 'invocation', 'catalog', 'fake-provider'];
const JUDGED_APPS = ['gateway', 'invocation', 'catalog'];

const USAGE =
  'usage: node scripts/bench/overload.mjs [--seconds N] [--factor X] [--capacity-seconds N] [--connections N] [--sockets N] [--shedding on|off] [--env NAME=VALUE]... [--database-url URL] [--json] [--json-file PATH]';

function usage(message) {
  process.stderr.write(`bench: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** The command line (node:util's parser), numbers checked against their least value. */
function readOptions() {
  let values;
  try {
    ({ values } = parseCommandLine({
      options: {
        seconds: { type: 'string', default: '60' },
        factor: { type: 'string', default: '3' },
        'capacity-seconds': { type: 'string', default: '20' },
        connections: { type: 'string', default: '64' },
        sockets: { type: 'string', default: '4096' },
        shedding: { type: 'string', default: 'on' },
        env: { type: 'string', multiple: true, default: [] },
        'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/waggle_bench' },
        json: { type: 'boolean', default: false },
        'json-file': { type: 'string' },
      },
    }));
  } catch (error) {
    usage(error.message);
  }
  const least = { seconds: 1, factor: 0.1, 'capacity-seconds': 1, connections: 1, sockets: 1 };
  for (const [name, min] of Object.entries(least)) if (!(Number(values[name]) >= min)) usage(`--${name} must be a number, at least ${min}`);
  if (!['on', 'off'].includes(values.shedding)) usage('--shedding must be on or off');
  const env = {};
  for (const pair of values.env) {
    const [name, ...rest] = pair.split('=');
    if (!/^[A-Z][A-Z0-9_]*$/.test(name) || rest.length === 0) usage('--env takes NAME=VALUE');
    env[name] = rest.join('=');
  }
  return {
    seconds: Number(values.seconds),
    factor: Number(values.factor),
    capacitySeconds: Number(values['capacity-seconds']),
    connections: Number(values.connections),
    sockets: Number(values.sockets),
    shedding: values.shedding,
    env,
    databaseUrl: values['database-url'],
    json: values.json,
    jsonFile: values['json-file'] ?? null,
  };
}

// ---- The probe worker: its own event loop, so the load generator never delays a probe. ----

/** One GET on a fresh connection (a kubelet's probe): its status (0: no answer) and milliseconds. */
function probeOnce(port, path) {
  return new Promise((resolve) => {
    const started = performance.now();
    const done = (status) => resolve({ status, ms: performance.now() - started });
    const req = httpGet({ host: '127.0.0.1', port, path, agent: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume();
      res.once('end', () => done(res.statusCode ?? 0));
      res.once('error', () => done(0));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => done(0));
    req.end();
  });
}

function runProbeWorker({ targets }) {
  const tick = () => {
    for (const target of targets) {
      const at = Date.now();
      void probeOnce(target.port, target.path).then((result) => parentPort.postMessage({ target: target.name, at, ...result }));
    }
  };
  tick();
  setInterval(tick, PROBE_INTERVAL_MS);
}

// ---- Load generation. ----

/**
 * What a request's answer was: `ok` (2xx), `shed_gateway` / `shed_service` (the overload
 * refusal, by who decided it), `error_<status>` for anything else, `failed_<code>` for no answer.
 */
function outcomeOf(status, text) {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 503) {
    try {
      const body = JSON.parse(text);
      if (body.error_code === 'upstream_request_failed' && body.details?.reason)
        return body.details.pattern ? 'shed_service' : 'shed_gateway';
    } catch {
      // not the catalog's shape: counted as an error below
    }
  }
  return `error_${status}`;
}

/**
 * Sends one invoke, recording when it was due, when it left, and (once answered) how long it
 * took from when it was due and how it was answered; until then its outcome is `unanswered`.
 */
function invoker(pool, headers, body, records) {
  return async (dueAt) => {
    const record = { dueAt, lateMs: performance.now() - dueAt, ms: NaN, outcome: 'unanswered' };
    records.push(record);
    let outcome;
    try {
      const answer = await pool.request({ path: '/v1/prompt/invoke', method: 'POST', headers, body });
      outcome = outcomeOf(answer.statusCode, await answer.body.text());
    } catch (error) {
      outcome = `failed_${error?.code ?? error?.name ?? 'unknown'}`;
    }
    record.ms = performance.now() - dueAt;
    record.outcome = outcome;
  };
}

/** `connections` loops each sending its next request when the last is answered, for `seconds`. */
async function closedLoop(send, connections, seconds) {
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) await send(performance.now());
    }),
  );
}

/**
 * A fixed arrival rate: request i is due at start + i/rate and leaves as soon as the generator
 * gets to it, whatever happened to the others. Resolves once all are sent, with the promises
 * of those still unanswered.
 */
async function openLoop(send, rate, seconds) {
  const start = performance.now();
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const pending = new Set();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
    for (; sent < due; sent += 1) {
      const answered = send(start + sent * interval);
      pending.add(answered);
      void answered.finally(() => pending.delete(answered));
    }
    await sleep(1);
  }
  return { start, pending };
}

// ---- Measurements. ----

function rssMiB(pid) {
  try {
    const kib = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kib) ? kib / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The machine's count of SYNs dropped because a listen queue was full (TcpExt ListenDrops): each costs its client a 1 s retransmission. */
function listenDrops() {
  try {
    const [names, values] = readFileSync('/proc/net/netstat', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('TcpExt:'))
      .map((line) => line.split(/\s+/).slice(1));
    return Number(values[names.indexOf('ListenDrops')]);
  } catch {
    return NaN;
  }
}

/** Each app's pid (alive or not) and its /health/live `started_at`. */
async function identities(procs) {
  const found = {};
  for (const proc of procs) {
    const live = proc.port ? await httpRequest(proc.port, '/health/live') : undefined;
    let startedAt = null;
    try {
      startedAt = live?.status === 200 ? JSON.parse(live.body.toString()).started_at : null;
    } catch {
      // reported as null
    }
    found[proc.name] = { pid: proc.pid, alive: proc.exit === null, startedAt };
  }
  return found;
}

/** The samples of `name` in a scrape's text, each as its labels joined by `/` (empty for none) → value. */
function samplesOf(text, name) {
  const found = {};
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)`, 'gm'))) {
    const labels = [...(match[1] ?? '').matchAll(/\w+="([^"]*)"/g)].map((label) => label[1]);
    found[labels.join('/')] = Number(match[2]);
  }
  return found;
}

async function scrape(port) {
  return (await httpRequest(port, '/metrics', { timeoutMs: 2_000 })).body?.toString() ?? '';
}

/** What the overload check sees in an app now: its event-loop delay (ms) and requests in flight. */
async function overloadGauges(port) {
  const text = await scrape(port);
  return {
    delayMs: (samplesOf(text, 'waggle_event_loop_delay_seconds')[''] ?? NaN) * 1000,
    inFlight: Object.values(samplesOf(text, 'waggle_in_flight_requests'))[0] ?? NaN,
  };
}

/** Figures of one phase's records: answers by outcome, and latency of the accepted ones. */
function phaseFigures(records, seconds) {
  const outcomes = {};
  for (const record of records) outcomes[record.outcome] = (outcomes[record.outcome] ?? 0) + 1;
  const ok = records.filter((record) => record.outcome === 'ok');
  const shed = (outcomes.shed_gateway ?? 0) + (outcomes.shed_service ?? 0);
  return {
    requests: records.length,
    outcomes,
    acceptedPerSecond: ok.length / seconds,
    shedShare: shed / (records.length || 1),
    failed: records.length - ok.length - shed,
    acceptedMs: summarize(ok.map((record) => record.ms)),
    lateMs: summarize(records.map((record) => record.lateMs)),
  };
}

/** The largest of the readings: what the overload check of the gateway and of invocation saw at its worst. */
function checkedMax(samples) {
  return Object.fromEntries(
    ['gateway', 'invocation'].map((app) => {
      const readings = samples.filter((sample) => sample.gauges[app]).map((sample) => sample.gauges[app]);
      return [app, { delayMs: Math.max(...readings.map((g) => g.delayMs)), inFlight: Math.max(...readings.map((g) => g.inFlight)) }];
    }),
  );
}

/** The overload phase second by second, folded into `stepS`-second rows. */
function timeline(records, rss, probes, start, seconds, stepS) {
  const rows = [];
  for (let from = 0; from < seconds; from += stepS) {
    const inRow = (at) => at >= start + from * 1000 && at < start + (from + stepS) * 1000;
    const here = records.filter((record) => inRow(record.dueAt));
    const ok = here.filter((record) => record.outcome === 'ok');
    const row = {
      fromS: from,
      offered: here.length / stepS,
      accepted: ok.length / stepS,
      shed: here.filter((record) => record.outcome.startsWith('shed_')).length / stepS,
      failed: here.filter((record) => record.outcome !== 'ok' && !record.outcome.startsWith('shed_')).length / stepS,
      acceptedP99Ms: summarize(ok.map((record) => record.ms)).p99,
      rssMiB: Object.fromEntries(APPS.map((app) => [app, median(rss.filter((s) => inRow(s.at)).map((s) => s.mib[app]))])),
      checked: checkedMax(rss.filter((sample) => inRow(sample.at))),
      probeMaxMs: {},
    };
    for (const sample of probes.filter((p) => inRow(p.perfAt)))
      row.probeMaxMs[sample.target] = Math.max(row.probeMaxMs[sample.target] ?? 0, sample.ms);
    rows.push(row);
  }
  return rows;
}

function probeFigures(probes, from, to) {
  const figures = {};
  for (const sample of probes.filter((p) => p.perfAt >= from && p.perfAt < to)) {
    const entry = (figures[sample.target] ??= { ms: [], notOk: 0 });
    entry.ms.push(sample.ms);
    if (sample.status !== 200) entry.notOk += 1;
  }
  return Object.fromEntries(Object.entries(figures).map(([target, { ms, notOk }]) => [target, { ...summarize(ms), notOk }]));
}

/**
 * RSS before the overload, and during it: the median of the 10 s after the first third (the
 * heap grows to the new rate of work while the load ramps up and the JIT warms, as in the
 * soak's first window), the median of the last 10 s, the largest reading, and the growth
 * between the two medians: what "flat" is judged by.
 */
function rssFigures(rss, start, seconds) {
  const window = (fromS, toS) => rss.filter((s) => s.at >= start + fromS * 1000 && s.at < start + toS * 1000);
  const settledFrom = Math.min(Math.floor(seconds / 3), Math.max(0, seconds - 20));
  const figures = {};
  for (const app of APPS) {
    const before = median(rss.filter((s) => s.at < start).map((s) => s.mib[app]));
    const settled = median(window(settledFrom, settledFrom + 10).map((s) => s.mib[app]));
    const last = median(window(seconds - 10, seconds).map((s) => s.mib[app]));
    const max = Math.max(
      ...window(0, seconds)
        .map((s) => s.mib[app])
        .filter(Number.isFinite),
    );
    figures[app] = { before, settledFromS: settledFrom, settled, last10s: last, max, growth: last / settled - 1 };
  }
  return figures;
}

// ---- The report. ----

function markdown(r) {
  const ms = (s) => `${fmt(s.p50, 1)} / ${fmt(s.p99, 1)} / ${fmt(s.max, 1)}`;
  const o = r.overload;
  const lines = [
    `Overload, shedding ${r.options.shedding}; Node ${r.machine.node}, ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.date}; load average ${r.machine.loadAverage} at start, ${r.loadAverageAtEnd} at end.`,
    '',
    `Capacity (closed loop, ${r.options.connections} connections, ${r.options.capacitySeconds} s): **${fmt(r.capacity.acceptedPerSecond, 0)} req/s**, accepted p50 / p99 / max ${ms(r.capacity.acceptedMs)} ms, non-2xx ${r.capacity.requests - (r.capacity.outcomes.ok ?? 0)}; the overload checks saw at most ${fmt(r.capacity.checked.gateway.delayMs, 0)} / ${fmt(r.capacity.checked.invocation.delayMs, 0)} ms of event-loop delay and ${fmt(r.capacity.checked.gateway.inFlight, 0)} / ${fmt(r.capacity.checked.invocation.inFlight, 0)} requests in flight (gateway / invocation).`,
    '',
    `Overload (open loop at ${r.options.factor}× = ${fmt(o.rate, 0)} req/s for ${r.options.seconds} s, ${o.requests} requests): accepted ${fmt(o.acceptedPerSecond, 0)} req/s, p50 / p99 / max ${ms(o.acceptedMs)} ms; shed ${fmt(o.shedShare * 100, 1)} % (gateway ${o.outcomes.shed_gateway ?? 0}, services ${o.outcomes.shed_service ?? 0}); other failures ${o.failed} (${JSON.stringify(Object.fromEntries(Object.entries(o.outcomes).filter(([k]) => k !== 'ok' && !k.startsWith('shed_'))))}); generator lateness p99 ${fmt(o.lateMs.p99, 1)} ms; still out after the phase ${o.outstandingAtEnd}, waited ${fmt(o.drainMs / 1000, 1)} s; SYNs dropped on full listen queues: ${r.capacity.listenDrops} during the capacity phase, ${o.listenDrops} during the overload.`,
    '',
    `Shed by (waggle_overload_shed_total): gateway ${JSON.stringify(r.shedCounts.gateway)}, invocation ${JSON.stringify(r.shedCounts.invocation)}.`,
    '',
    '| aim | value | aim | met |',
    '| --- | ---: | ---: | --- |',
    ...r.aims.map((aim) => `| ${aim.figure} | ${aim.value} | ${aim.aim} | ${aim.met ? 'yes' : '**no**'} |`),
    '',
    '| probe | during capacity p50 / p99 / max (ms), not 200 | during overload p50 / p99 / max (ms), not 200 |',
    '| --- | ---: | ---: |',
  ];
  for (const target of Object.keys(r.probes.overload)) {
    const c = r.probes.capacity[target];
    const v = r.probes.overload[target];
    lines.push(`| ${target} | ${c ? `${ms(c)}, ${c.notOk}` : 'n/a'} | ${ms(v)}, ${v.notOk} |`);
  }
  const cpuColumns = [...APPS, 'NATS', 'Redis', 'PostgreSQL', 'bench', 'infra', 'other'];
  lines.push(
    '',
    `Where the CPU went, in cores of ${r.machine.cores} ("bench" is this script, the load generator; "infra" other NATS, Redis and PostgreSQL processes; "other" the rest of the machine):`,
    '',
    `| phase | ${cpuColumns.join(' | ')} | busy |`,
    `| --- | ${cpuColumns.map(() => '---:').join(' | ')} | ---: |`,
    ...[
      ['capacity', r.capacity.cpuCores],
      ['overload', r.overload.cpuCores],
    ].map(([phase, cpu]) => `| ${phase} | ${cpuColumns.map((name) => fmt(cpu[name])).join(' | ')} | ${fmt(cpu.busy)} |`),
  );
  const settledFrom = r.rss.gateway.settledFromS;
  lines.push(
    '',
    `| RSS (MiB, medians) | before overload | ${settledFrom}–${settledFrom + 10} s | last 10 s | max | growth |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const app of APPS) {
    const m = r.rss[app];
    lines.push(
      `| ${app} | ${fmt(m.before, 0)} | ${fmt(m.settled, 0)} | ${fmt(m.last10s, 0)} | ${fmt(m.max, 0)} | ${fmt(m.growth * 100, 1)} % |`,
    );
  }
  const probeTargets = Object.keys(r.probes.overload);
  lines.push(
    '',
    `| from (s) | offered/s | accepted/s | shed/s | failed/s | accepted p99 (ms) | gateway / invocation delay max (ms) | gateway / invocation in flight max | ${APPS.map((app) => `${app} RSS`).join(' | ')} | ${probeTargets.map((t) => `${t} max (ms)`).join(' | ')} |`,
    `| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ${APPS.map(() => '---:').join(' | ')} | ${probeTargets.map(() => '---:').join(' | ')} |`,
  );
  for (const row of r.timeline) {
    lines.push(
      `| ${row.fromS} | ${fmt(row.offered, 0)} | ${fmt(row.accepted, 0)} | ${fmt(row.shed, 0)} | ${fmt(row.failed, 0)} | ${fmt(row.acceptedP99Ms, 0)} | ${fmt(row.checked.gateway.delayMs, 0)} / ${fmt(row.checked.invocation.delayMs, 0)} | ${fmt(row.checked.gateway.inFlight, 0)} / ${fmt(row.checked.invocation.inFlight, 0)} | ${APPS.map((app) => fmt(row.rssMiB[app], 0)).join(' | ')} | ${probeTargets.map((t) => fmt(row.probeMaxMs[t], 0)).join(' | ')} |`,
    );
  }
  lines.push('', '| app | pid before → after | started_at before → after | restarted |', '| --- | --- | --- | --- |');
  for (const app of APPS) {
    const before = r.identities.before[app];
    const after = r.identities.after[app];
    const restarted = r.restarted.includes(app) ? '**yes**' : r.unresponsive.includes(app) ? 'no, but not answering' : 'no';
    lines.push(`| ${app} | ${before.pid} → ${after.pid} | ${before.startedAt ?? '—'} → ${after.startedAt ?? '—'} | ${restarted} |`);
  }
  if (r.otherWaggleProcesses?.length)
    lines.push('', `Other Waggle processes shared the cores: ${r.otherWaggleProcesses.map((p) => `${p.what} (pid ${p.pid})`).join(', ')}.`);
  if (r.failures.length) lines.push('', 'Failures:', ...r.failures.map((failure) => `- ${failure}`));
  return `${lines.join('\n')}\n`;
}

function aimRows(r) {
  const ratio = r.overload.acceptedMs.p99 / r.capacity.acceptedMs.p99;
  const probeMax = Math.max(...Object.values(r.probes.overload).map((probe) => probe.max));
  const probeFailures = Object.values(r.probes.overload).reduce((sum, probe) => sum + probe.notOk, 0);
  const growth = Math.max(...JUDGED_APPS.map((app) => r.rss[app].growth));
  return [
    {
      figure: 'accepted p99 at overload / at capacity',
      value: `${fmt(r.overload.acceptedMs.p99, 0)} / ${fmt(r.capacity.acceptedMs.p99, 0)} ms = ${fmt(ratio, 2)}×`,
      aim: `≤ ${AIMS.acceptedP99TimesCapacity}×`,
      met: ratio <= AIMS.acceptedP99TimesCapacity,
    },
    {
      figure: `RSS growth, ${r.rss.gateway.settledFromS}–${r.rss.gateway.settledFromS + 10} s → last 10 s of the overload (largest of gateway, invocation, catalog)`,
      value: `${fmt(growth * 100, 1)} %`,
      aim: `≤ ${AIMS.rssGrowth * 100} %`,
      met: growth <= AIMS.rssGrowth,
    },
    {
      figure: 'slowest probe during the overload (and answers not 200)',
      value: `${fmt(probeMax, 0)} ms (${probeFailures})`,
      aim: `< ${AIMS.probeMaxMs} ms, all 200`,
      met: probeMax < AIMS.probeMaxMs && probeFailures === 0,
    },
    {
      figure: 'processes restarted, gone or not answering after',
      value: [...r.restarted, ...r.unresponsive].join(', ') || 'none',
      aim: 'none',
      met: r.restarted.length + r.unresponsive.length === 0,
    },
  ];
}

// ---- The run. ----

async function main() {
  const options = readOptions();
  exitUnlessBuilt({ ...ENTRIES, ownInfrastructure: OWN_INFRASTRUCTURE });
  // They cannot answer this bench's requests (its own NATS, Redis and database), but they share the cores.
  const others = otherWaggleProcesses();
  if (others.length > 0) log(`warning: other Waggle processes share the machine: ${others.map((p) => `${p.what} ${p.pid}`).join(', ')}`);
  const info = machine();
  const tmp = mkdtempSync(join(tmpdir(), 'waggle-bench-overload-'));
  // The machine's redis-server and nats-server binaries, on free ports, data under tmp.
  const { startOwnNats, startOwnRedis } = createRequire(import.meta.url)(`../../${OWN_INFRASTRUCTURE}`);
  const ownRedis = await startOwnRedis(await freePort(), join(tmp, 'redis'));
  const ownNats = await startOwnNats(await freePort(), join(tmp, 'nats'));
  const metricsPort = await freePort();
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: ownRedis.url,
    NATS_URL: ownNats.url,
    LOG_LEVEL: 'warn',
    METRICS_PORT: String(metricsPort),
    ...(options.shedding === 'off' ? SHEDDING_OFF : {}),
    ...options.env,
  };
  const procs = [];
  const failures = [];
  const state = { catalogLoaded: false };
  let worker;
  let rssTimer;
  let report;
  try {
    runNode(ENTRIES.migrate, [], env, 'migrate');
    const { gateway, stack, auth } = await startPromptStack({
      apps: ['catalog', 'invocation', 'gateway'],
      env,
      tmp,
      model: MODEL,
      deployment: DEPLOYMENT,
      catalogVersion: '2099.9.7',
      workspace: 'bench-overload',
      procs,
      state,
    });
    const invocation = stack.find((proc) => proc.name === 'invocation');
    log(`stack up: ${procs.map((p) => `${p.name} pid ${p.pid}${p.port ? ` :${p.port}` : ''}`).join(', ')}`);

    const probes = [];
    worker = new Worker(new URL(import.meta.url), {
      workerData: {
        targets: [
          { name: 'gateway /health/live', port: gateway.port, path: '/health/live' },
          { name: 'gateway /health/ready', port: gateway.port, path: '/health/ready' },
          { name: 'invocation /health/live', port: invocation.port, path: '/health/live' },
          { name: 'invocation /health/ready', port: invocation.port, path: '/health/ready' },
        ],
      },
    });
    // The worker's wall clock, mapped onto this thread's performance.now() for the timeline.
    const perfOffset = performance.timeOrigin;
    worker.on('message', (sample) => probes.push({ ...sample, perfAt: sample.at - perfOffset }));
    const rss = [];
    const byName = Object.fromEntries(procs.map((proc) => [proc.name, proc]));
    const gaugePorts = { gateway: metricsPort, invocation: invocation.port };
    rssTimer = setInterval(() => {
      const sample = { at: performance.now(), mib: Object.fromEntries(APPS.map((app) => [app, rssMiB(byName[app].pid)])), gauges: {} };
      rss.push(sample);
      for (const [app, port] of Object.entries(gaugePorts)) void overloadGauges(port).then((gauges) => (sample.gauges[app] = gauges));
    }, RSS_INTERVAL_MS);
    const before = await identities(procs);
    const infra = infraProcesses({ natsUrl: ownNats.url, redisUrl: ownRedis.url, databaseUrl: options.databaseUrl });
    const accounted = [...procs.map(({ name, pid }) => ({ name, pid })), ...infra.procs];
    const quiet = await settle(accounted, { maxCores: 0.5, windowMs: 1_000, timeoutMs: 60_000, wholeMachine: true });
    log(`machine at ${fmt(quiet, 2)} cores busy before the warm-up`);

    const pool = new Pool(`http://127.0.0.1:${gateway.port}`, {
      connections: options.sockets,
      pipelining: 1,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const headers = { ...auth, 'content-type': 'application/json' };
    const body = JSON.stringify({ deployment: DEPLOYMENT, variant: 'default', inputs: { question: 'hello there' } });

    log(`warm-up: ${WARMUP.seconds} s at ${WARMUP.connections} connections`);
    await closedLoop(invoker(pool, headers, body, []), WARMUP.connections, WARMUP.seconds);

    log(`capacity: ${options.capacitySeconds} s at ${options.connections} connections`);
    const capacityRecords = [];
    const capacityFrom = performance.now();
    const capacityCpuFrom = cpuSnapshot(accounted);
    const capacityDropsFrom = listenDrops();
    await closedLoop(invoker(pool, headers, body, capacityRecords), options.connections, options.capacitySeconds);
    const capacityCpu = cpuBetween(capacityCpuFrom, cpuSnapshot(accounted));
    const capacityTo = performance.now();
    const capacity = {
      ...phaseFigures(capacityRecords, (capacityTo - capacityFrom) / 1000),
      checked: checkedMax(rss.filter((sample) => sample.at >= capacityFrom && sample.at < capacityTo)),
      cpuCores: capacityCpu,
      listenDrops: listenDrops() - capacityDropsFrom,
    };
    log(`capacity ${fmt(capacity.acceptedPerSecond, 0)} req/s, p99 ${fmt(capacity.acceptedMs.p99, 1)} ms`);
    await settle(stack, { maxCores: 0.1, timeoutMs: 15_000 });

    const rate = capacity.acceptedPerSecond * options.factor;
    log(`overload: ${fmt(rate, 0)} req/s (${options.factor}× capacity) for ${options.seconds} s`);
    const overloadRecords = [];
    const overloadCpuFrom = cpuSnapshot(accounted);
    const overloadDropsFrom = listenDrops();
    const { start, pending } = await openLoop(invoker(pool, headers, body, overloadRecords), rate, options.seconds);
    const overloadCpu = cpuBetween(overloadCpuFrom, cpuSnapshot(accounted));
    const outstandingAtEnd = pending.size;
    const drainFrom = performance.now();
    await Promise.race([Promise.allSettled([...pending]), sleep(DRAIN_TIMEOUT_MS)]);
    const drainMs = performance.now() - drainFrom;
    if (pending.size > 0) failures.push(`${pending.size} requests still unanswered ${DRAIN_TIMEOUT_MS / 1000} s after the overload`);
    log(`overload sent; ${outstandingAtEnd} were still out, answered within ${fmt(drainMs / 1000, 1)} s`);
    await sleep(2 * PROBE_INTERVAL_MS);

    const after = await identities(procs);
    const restarted = APPS.filter(
      (app) =>
        !after[app].alive ||
        after[app].pid !== before[app].pid ||
        (before[app].startedAt && after[app].startedAt && after[app].startedAt !== before[app].startedAt),
    );
    for (const app of restarted) failures.push(`${app} died or was restarted during the bench`);
    const unresponsive = APPS.filter((app) => before[app].startedAt && !after[app].startedAt && !restarted.includes(app));
    for (const app of unresponsive) failures.push(`${app} did not answer /health/live after the overload`);
    const shed = {
      gateway: samplesOf(await scrape(metricsPort), 'waggle_overload_shed_total'),
      invocation: samplesOf(await scrape(invocation.port), 'waggle_overload_shed_total'),
    };
    await pool.close();

    const overload = {
      rate,
      ...phaseFigures(overloadRecords, options.seconds),
      outstandingAtEnd,
      drainMs,
      cpuCores: overloadCpu,
      listenDrops: listenDrops() - overloadDropsFrom,
    };
    report = {
      options,
      machine: info,
      quietCoresBefore: quiet,
      capacity,
      overload,
      shedCounts: shed,
      probes: {
        capacity: probeFigures(probes, capacityFrom, capacityTo),
        overload: probeFigures(probes, start, start + options.seconds * 1000),
      },
      rss: rssFigures(rss, start, options.seconds),
      timeline: timeline(overloadRecords, rss, probes, start, options.seconds, 5),
      identities: { before, after },
      restarted,
      unresponsive,
      failures,
    };
    report.aims = aimRows(report);
  } catch (error) {
    failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    clearInterval(rssTimer);
    await worker?.terminate();
    if (state.catalogLoaded) restoreShippedCatalog(ENTRIES.cli, env, failures);
    await stopAll(procs, failures);
    await Promise.allSettled([ownRedis.server.stop(), ownNats.server.stop()]);
    rmSync(tmp, { recursive: true, force: true });
  }
  if (report) {
    report.otherWaggleProcesses = others;
    report.loadAverageAtEnd = loadAverage();
    if (options.jsonFile) writeFileSync(options.jsonFile, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : markdown(report));
  }
  for (const failure of failures) log(`FAILED: ${failure}`);
  process.exit(failures.length || !report ? 1 : 0);
}

if (isMainThread) await main();
else runProbeWorker(workerData);
