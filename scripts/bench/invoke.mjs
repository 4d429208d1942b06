#!/usr/bin/env node
// Prompt invoke: what the gateway path (gateway → NATS → invocation → provider layer →
// model provider, and back) adds to a direct call to the model provider
// (docs/benchmarks.md, "Prompt invoke: the gateway path against a direct provider call").
//
//   npm run build && npm run bench [-- --duration N] [--streams N] [--tracing on|off] [--json] [--json-file PATH]
//
// Starts its own fake model provider (fixed latency), catalog, invocation and gateway from
// dist/ on free loopback ports (after running the migrations), loads a copy of the shipped
// model catalog with one extra model served by the fake provider, creates a workspace on
// the enterprise plan and applies one prompt deployment with the operator CLI. Then:
//   - non-streaming: POST the fake's /v1/chat/completions directly, and POST the gateway's
//     /v1/prompt/invoke (which makes the same call through the provider layer): N s at 1
//     connection (latency) and N s at 64 connections (throughput) each, with autocannon;
//   - streaming: M sequential requests each (one keep-alive connection), timing the first
//     SSE `data:` event, the first event carrying text, and the whole stream.
// Each measured run starts once the processes have gone quiet; at the end the shipped
// catalog is loaded back (catalog load --force) before the processes are stopped.
// Prints the added latency (gateway − direct), the req/s ratio and the CPU each process
// used. Needs PostgreSQL, Redis and NATS (scripts/ensure-infra.sh). Markdown on stdout (JSON
// with --json), progress on stderr. Exits 1 when any request failed or answered non-2xx,
// when the stack did not start, or when a process did not exit 0 after SIGTERM.
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  exitUnlessBuilt,
  benchCatalogYaml,
  benchPromptYaml,
  cannon,
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
  runNode,
  settle,
  startProcess,
  stopProcess,
  summarize,
  waitFor,
  EXIT_TIMEOUT_MS,
} from './bench-lib.mjs';

const ENTRIES = {
  migrate: 'dist/tools/migrate/src/main.js',
  cli: 'dist/tools/cli/src/main.js',
  fake: 'dist/tools/fake-provider/src/main.js',
  catalog: 'dist/apps/catalog/src/main.js',
  invocation: 'dist/apps/invocation/src/main.js',
  gateway: 'dist/apps/gateway/src/main.js',
};

const WARMUP = { connections: 8, duration: 2, streams: 20 };
const THROUGHPUT_CONNECTIONS = 64;
const STREAM_TIMEOUT_MS = 10_000;
const MODEL = 'fake-chat';
const QUESTION = 'hello there';
const EXPECTED_RESPONSE = `Echo: ${QUESTION}`;
const AIMS = { addedP50Ms: 1, addedP99Ms: 3, addedFirstEventP99Ms: 2, gatewayRps: 1000 };

function usage(message) {
  if (message) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write(
    'usage: node scripts/bench/invoke.mjs [--duration N] [--streams N] [--latency-ms N] [--token-delay-ms N] [--tracing on|off] [--json] [--json-file PATH]\n',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = {
    duration: 10,
    streams: 200,
    latencyMs: 20,
    tokenDelayMs: 5,
    tracing: process.env.OTEL_SDK_DISABLED === 'true' ? 'off' : 'on',
    json: false,
    jsonFile: null,
  };
  const integers = {
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
    else if (name === '--tracing') {
      options.tracing = value();
      if (!['on', 'off'].includes(options.tracing)) usage('--tracing must be on or off');
    } else usage(`unknown argument ${arg}`);
  }
  return options;
}

function baseEnv(tracing) {
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATABASE_URL: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle',
  };
  if (tracing === 'off') env.OTEL_SDK_DISABLED = 'true';
  else delete env.OTEL_SDK_DISABLED;
  return env;
}


/**
 * One streamed request on `agent` (keep-alive, one socket): times from just before the
 * request is written to the first SSE `data:` event, to the first event carrying text
 * (`textOf` says which), and to the end of the response. Fails on a non-200, an `error`
 * event, a missing `data: [DONE]` or a time-out.
 */
function timeStream(port, path, headers, body, agent, textOf) {
  return new Promise((resolve) => {
    const payload = Buffer.from(body);
    const started = performance.now();
    const result = { ok: false, status: 0 };
    let buffer = '';
    let done = false;
    const fail = (error) => {
      if (!result.error) result.error = error;
      resolve(result);
    };
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        timeout: STREAM_TIMEOUT_MS,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length, accept: 'text/event-stream' },
      },
      (res) => {
        result.status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          const now = performance.now();
          buffer += chunk;
          if (result.firstEventMs === undefined && /(^|\n)data:/.test(buffer)) result.firstEventMs = now - started;
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
                if (result.status === 200) result.error = `not JSON: ${data.slice(0, 200)}`;
                continue;
              }
              if (parsed?.type === 'error' || parsed?.error) result.error = `error event: ${data.slice(0, 300)}`;
              const text = textOf(parsed);
              if (text) {
                if (result.firstTextMs === undefined) result.firstTextMs = now - started;
                result.text = (result.text ?? '') + text;
              }
            }
          }
        });
        res.once('end', () => {
          result.totalMs = performance.now() - started;
          if (result.status !== 200) return fail(`HTTP ${result.status}: ${buffer.slice(0, 300)}`);
          if (!done) return fail('stream ended without data: [DONE]');
          if (result.error) return fail(result.error);
          result.ok = true;
          resolve(result);
        });
        res.once('error', (error) => fail(error.message));
      },
    );
    req.once('timeout', () => {
      req.destroy();
      fail(`no complete answer within ${STREAM_TIMEOUT_MS} ms`);
    });
    req.once('error', (error) => fail(error.message));
    req.end(payload);
  });
}

/** `count` sequential streamed requests; summary of the three times and the CPU each process used. */
async function streamRun(target, count, procs) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const firstEvent = [];
  const firstText = [];
  const total = [];
  const failures = [];
  const before = cpuSnapshot(procs);
  for (let i = 0; i < count; i += 1) {
    const result = await timeStream(target.port, target.path, target.headers, target.streamBody, agent, target.textOf);
    if (!result.ok) {
      failures.push(result.error ?? `HTTP ${result.status}`);
      continue;
    }
    if (result.text !== target.expectedText)
      failures.push(`streamed text ${JSON.stringify(result.text)}, expected ${JSON.stringify(target.expectedText)}`);
    firstEvent.push(result.firstEventMs);
    firstText.push(result.firstTextMs);
    total.push(result.totalMs);
  }
  const cpu = cpuBetween(before, cpuSnapshot(procs));
  agent.destroy();
  return {
    requests: count,
    failed: failures.length,
    failures: [...new Set(failures)].slice(0, 5),
    firstEventMs: summarize(firstEvent),
    firstTextMs: summarize(firstText),
    totalMs: summarize(total),
    cpuCores: cpu,
    cpuMsPerRequest: cpuMsPerRequest(
      cpu,
      procs.map((proc) => proc.name),
      count,
    ),
  };
}

const PROC_COLUMNS = ['gateway', 'invocation', 'catalog', 'fake-provider'];

function markdown(report) {
  const { direct, gateway } = report.targets;
  const rows = [direct, gateway];
  const lines = [
    `Fake provider latency ${report.fake.latencyMs} ms, ${report.fake.tokenDelayMs} ms between streamed fragments; tracing ${report.tracing}.`,
    '',
    'Non-streaming:',
    '',
    `| target | p50 / p99 / mean at 1 conn, exact (ms) | p50 / p99 at 1 conn, autocannon (ms) | req/s at 1 conn | req/s at ${THROUGHPUT_CONNECTIONS} conn | p50 / p99 at ${THROUGHPUT_CONNECTIONS} conn, autocannon (ms) | non-2xx / errors |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const t of rows) {
    const x = t.sequential.exactLatencyMs;
    const a = t.sequential.autocannonLatencyMs;
    const c = t.concurrent.autocannonLatencyMs;
    const runs = [t.warmup, t.sequential, t.concurrent];
    const non2xx = runs.reduce((sum, run) => sum + run.non2xx, 0);
    const errors = runs.reduce((sum, run) => sum + run.errors + run.timeouts, 0);
    lines.push(
      `| ${t.label} | ${fmt(x.p50, 3)} / ${fmt(x.p99, 3)} / ${fmt(x.mean, 3)} | ${a.p50} / ${a.p99} | ${fmt(t.sequential.requestsPerSecond, 0)} | ${fmt(t.concurrent.requestsPerSecond, 0)} | ${c.p50} / ${c.p99} | ${non2xx} / ${errors} |`,
    );
  }
  lines.push(
    '',
    `Streaming, ${report.streams} sequential requests each on one keep-alive connection (ms from writing the request):`,
    '',
    '| target | first `data:` event p50 / p99 / mean | first text fragment p50 / p99 | whole stream p50 / p99 | failed |',
    '| --- | ---: | ---: | ---: | ---: |',
  );
  for (const t of rows) {
    const s = t.streaming;
    lines.push(
      `| ${t.label} | ${fmt(s.firstEventMs.p50, 3)} / ${fmt(s.firstEventMs.p99, 3)} / ${fmt(s.firstEventMs.mean, 3)} | ${fmt(s.firstTextMs.p50, 3)} / ${fmt(s.firstTextMs.p99, 3)} | ${fmt(s.totalMs.p50, 2)} / ${fmt(s.totalMs.p99, 2)} | ${s.failed} |`,
    );
  }
  const a = report.added;
  const met = (ok) => (ok ? 'met' : '**not met**');
  lines.push(
    '',
    '| figure | value | aim | |',
    '| --- | ---: | ---: | --- |',
    `| added latency p50, 1 conn (gateway − direct) | ${fmt(a.p50Ms, 3)} ms | < ${AIMS.addedP50Ms} ms | ${met(a.p50Ms < AIMS.addedP50Ms)} |`,
    `| added latency p99, 1 conn | ${fmt(a.p99Ms, 3)} ms | < ${AIMS.addedP99Ms} ms | ${met(a.p99Ms < AIMS.addedP99Ms)} |`,
    `| added time to first event p50 | ${fmt(a.firstEventP50Ms, 3)} ms | | |`,
    `| added time to first event p99 | ${fmt(a.firstEventP99Ms, 3)} ms | < ${AIMS.addedFirstEventP99Ms} ms | ${met(a.firstEventP99Ms < AIMS.addedFirstEventP99Ms)} |`,
    `| req/s through the gateway, ${THROUGHPUT_CONNECTIONS} conn | ${fmt(gateway.concurrent.requestsPerSecond, 0)} | ≥ ${AIMS.gatewayRps} | ${met(gateway.concurrent.requestsPerSecond >= AIMS.gatewayRps)} |`,
    `| req/s ratio gateway / direct, ${THROUGHPUT_CONNECTIONS} conn | ${fmt(a.rpsRatio, 3)} | | |`,
    `| req/s ratio gateway / direct, 1 conn | ${fmt(a.rpsRatioSequential, 3)} | | |`,
    '',
    `CPU during the measured runs, in cores (the machine has ${report.machine.cores}); "bench" is this script with its load generator, "infra" NATS, Redis and PostgreSQL, "other" everything else:`,
    '',
    `| run | ${PROC_COLUMNS.join(' | ')} | bench | infra | other |`,
    `| --- |${' ---: |'.repeat(PROC_COLUMNS.length + 3)}`,
  );
  const runs = [];
  for (const t of rows) {
    runs.push(
      [`${t.label}, 1 conn`, t.sequential],
      [`${t.label}, ${THROUGHPUT_CONNECTIONS} conn`, t.concurrent],
      [`${t.label}, streaming`, t.streaming],
    );
  }
  for (const [label, run] of runs) {
    const c = run.cpuCores;
    lines.push(
      `| ${label} | ${PROC_COLUMNS.map((name) => fmt(c[name])).join(' | ')} | ${fmt(c.bench)} | ${fmt(c.infra)} | ${fmt(c.other)} |`,
    );
  }
  lines.push(
    '',
    'CPU time per request (ms), each process in total and, in brackets, its JavaScript thread alone (the rest is V8 background threads: garbage collection, compilation):',
    '',
    `| run | ${PROC_COLUMNS.join(' | ')} | infra | bench |`,
    `| --- |${' ---: |'.repeat(PROC_COLUMNS.length + 2)}`,
  );
  for (const [label, run] of runs) {
    const m = run.cpuMsPerRequest;
    lines.push(
      `| ${label} | ${PROC_COLUMNS.map((name) => `${fmt(m[name], 2)} (${fmt(m.mainThreads[name], 2)})`).join(' | ')} | ${fmt(m.infra, 2)} | ${fmt(m.bench, 2)} |`,
    );
  }
  lines.push(
    '',
    `${report.durationS} s per autocannon run after a ${WARMUP.duration} s warm-up at ${WARMUP.connections} connections (and ${WARMUP.streams} streamed requests) per target; each measured run started once the processes had gone quiet (under 0.1 cores). ` +
      `Node ${report.machine.node}, ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.date}; ` +
      `load average at start ${report.machine.loadAverage}, at end ${report.machine.loadAverageAtEnd}.`,
  );
  if (report.otlpEndpoint) lines.push('', `Spans were exported to ${report.otlpEndpoint} (OTEL_EXPORTER_OTLP_ENDPOINT).`);
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
  const env = baseEnv(options.tracing);
  log(`tracing ${options.tracing}; running migrations (node ${ENTRIES.migrate})`);
  runNode(ENTRIES.migrate, [], env, 'migrations');

  const tmp = mkdtempSync(join(tmpdir(), 'waggle-bench-invoke-'));
  const procs = [];
  let catalogLoaded = false;
  let cleaning = null;
  const failures = [];
  const cleanup = () => {
    cleaning ??= (async () => {
      if (catalogLoaded) {
        // Back to the shipped catalog while the catalog service is still up.
        try {
          log('restoring the shipped model catalog (cli catalog load --force)');
          runNode(ENTRIES.cli, ['catalog', 'load', '--force', '--json'], env, 'catalog restore');
          catalogLoaded = false;
        } catch (error) {
          failures.push(`restoring the shipped catalog: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const stops = await Promise.all(procs.map(async (proc) => ({ process: proc.name, ...(await stopProcess(proc)) })));
      rmSync(tmp, { recursive: true, force: true });
      return stops;
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

  let report;
  try {
    const fakePort = await freePort();
    const fake = startProcess('fake-provider', ENTRIES.fake, {
      ...env,
      FAKE_PROVIDER_PORT: String(fakePort),
      FAKE_PROVIDER_HOST: '127.0.0.1',
      FAKE_PROVIDER_LATENCY_MS: String(options.latencyMs),
      FAKE_PROVIDER_TOKEN_DELAY_MS: String(options.tokenDelayMs),
    });
    procs.push(fake);
    const ports = {};
    for (const name of ['catalog', 'invocation', 'gateway']) {
      ports[name] = await freePort();
      const appEnv = { ...env, PORT: String(ports[name]) };
      if (name === 'invocation')
        Object.assign(appEnv, { FAKE_BASE_URL: `http://127.0.0.1:${fakePort}/v1`, FAKE_API_KEY: 'bench', PROVIDER_MAX_RETRIES: '0' });
      const proc = startProcess(name, ENTRIES[name], appEnv);
      proc.port = ports[name];
      procs.push(proc);
    }
    log(`started ${procs.map((p) => `${p.name} (pid ${p.pid}${p.port ? `, :${p.port}` : `, :${fakePort}`})`).join(', ')}`);
    await waitFor(fake, 'listening', async () => (await httpRequest(fakePort, '/_fake/requests')).status === 200);
    for (const proc of procs.slice(1))
      await waitFor(proc, 'live', async () => (await httpRequest(proc.port, '/health/live')).status === 200);
    const gatewayProc = procs.find((p) => p.name === 'gateway');
    await waitFor(gatewayProc, 'seeing catalog and invocation up', async () => {
      const ready = await httpRequest(ports.gateway, '/health/ready');
      try {
        const services = JSON.parse(ready.body?.toString() ?? '').services;
        return services?.catalog?.status === 'up' && services?.invocation?.status === 'up';
      } catch {
        return false;
      }
    });

    const catalogFile = join(tmp, 'models.yaml');
    writeFileSync(catalogFile, benchCatalogYaml('2099.9.1', MODEL));
    log('loading the shipped catalog plus fake-chat (cli catalog load)');
    catalogLoaded = true; // restore even if the load half-worked
    const loaded = JSON.parse(runNode(ENTRIES.cli, ['catalog', 'load', '--file', catalogFile, '--json'], env, 'catalog load'));
    if (!loaded.loaded) throw new Error(`catalog load did not load: ${JSON.stringify(loaded)}`);

    log('creating a workspace on the enterprise plan and applying the bench prompt (cli workspace create, apply)');
    const created = JSON.parse(
      runNode(ENTRIES.cli, ['workspace', 'create', '--name', 'bench-invoke', '--plan', 'enterprise', '--json'], env, 'workspace create'),
    );
    if (typeof created.api_key !== 'string') throw new Error(`workspace create printed no api_key: ${JSON.stringify(created)}`);
    const promptFile = join(tmp, 'prompts.yaml');
    writeFileSync(promptFile, benchPromptYaml('bench', MODEL));
    runNode(ENTRIES.cli, ['apply', '-f', promptFile, '--workspace', created.workspace_id, '--json'], env, 'apply');

    const json = { 'content-type': 'application/json' };
    const auth = { authorization: `Bearer ${created.api_key}` };
    const messages = [{ role: 'user', content: QUESTION }];
    const invokeBody = { deployment: 'bench', variant: 'default', inputs: { question: QUESTION } };
    const targets = {
      direct: {
        label: 'direct: fake provider POST /v1/chat/completions',
        port: fakePort,
        path: '/v1/chat/completions',
        headers: { authorization: 'Bearer bench' },
        body: JSON.stringify({ model: MODEL, messages }),
        // What the provider layer (AI SDK, openai-compatible, includeUsage) asks for.
        streamBody: JSON.stringify({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } }),
        responseText: (answer) => answer?.choices?.[0]?.message?.content,
        textOf: (event) => event?.choices?.[0]?.delta?.content,
      },
      gateway: {
        label: 'gateway: POST /v1/prompt/invoke',
        port: ports.gateway,
        path: '/v1/prompt/invoke',
        headers: auth,
        body: JSON.stringify(invokeBody),
        streamBody: JSON.stringify({ ...invokeBody, streaming: true }),
        responseText: (answer) => answer?.response,
        textOf: (event) => (event?.type === 'response' ? event.response : undefined),
      },
    };
    for (const target of Object.values(targets)) {
      target.expectedText = EXPECTED_RESPONSE;
      target.url = `http://127.0.0.1:${target.port}${target.path}`;
      const answer = await httpRequest(target.port, target.path, {
        method: 'POST',
        headers: { ...json, ...target.headers },
        body: target.body,
        timeoutMs: 10_000,
      });
      const text = answer.status === 200 ? target.responseText(JSON.parse(answer.body.toString())) : undefined;
      if (text !== EXPECTED_RESPONSE)
        throw new Error(`${target.label} answered ${answer.status}: ${answer.body?.toString().slice(0, 500)}`);
      target.responseBytes = answer.body.length;
      log(`${target.label}: 200, ${answer.body.length} B, response ${JSON.stringify(text)}`);
    }

    const accounted = procs.map(({ name, pid }) => ({ name, pid }));
    const load = (target, connections, duration, samples = false) =>
      cannon({
        url: target.url,
        method: 'POST',
        headers: { ...json, ...target.headers },
        body: target.body,
        connections,
        duration,
        samples,
        procs: accounted,
      });

    for (const target of Object.values(targets)) {
      log(`${target.label}: warm-up ${WARMUP.duration} s at ${WARMUP.connections} connections, ${WARMUP.streams} streamed requests`);
      target.warmup = await load(target, WARMUP.connections, WARMUP.duration);
      target.streamWarmup = await streamRun(target, WARMUP.streams, accounted);
    }
    // Before each measured run the processes are left to finish what the previous one left
    // (answers in flight, the ledger's batched writes), so it is not charged to this one.
    const quiet = async () => {
      const cores = await settle(accounted, { maxCores: 0.1, windowMs: 1_000 });
      if (cores >= 0.1) log(`warning: the processes still used ${fmt(cores)} cores after waiting 10 s for them to go quiet`);
    };
    for (const target of Object.values(targets)) {
      await quiet();
      log(`${target.label}: ${options.duration} s at 1 connection`);
      target.sequential = await load(target, 1, options.duration, true);
      log(
        `${target.label}: p50 ${fmt(target.sequential.exactLatencyMs.p50, 3)} ms, p99 ${fmt(target.sequential.exactLatencyMs.p99, 3)} ms`,
      );
    }
    for (const target of Object.values(targets)) {
      await quiet();
      log(`${target.label}: ${options.duration} s at ${THROUGHPUT_CONNECTIONS} connections`);
      target.concurrent = await load(target, THROUGHPUT_CONNECTIONS, options.duration);
      log(`${target.label}: ${fmt(target.concurrent.requestsPerSecond, 0)} req/s`);
    }
    for (const target of Object.values(targets)) {
      await quiet();
      log(`${target.label}: ${options.streams} streamed requests, one after the other`);
      target.streaming = await streamRun(target, options.streams, accounted);
      log(
        `${target.label}: first event p50 ${fmt(target.streaming.firstEventMs.p50, 3)} ms, p99 ${fmt(target.streaming.firstEventMs.p99, 3)} ms`,
      );
    }

    for (const target of Object.values(targets)) {
      for (const [phase, run] of [
        ['warm-up', target.warmup],
        ['1 connection', target.sequential],
        [`${THROUGHPUT_CONNECTIONS} connections`, target.concurrent],
      ]) {
        if (run.failed)
          failures.push(
            `${target.label}, ${phase}: ${run.non2xx} non-2xx (${JSON.stringify(run.statusCodes)}), ${run.errors} errors, ${run.timeouts} time-outs`,
          );
      }
      for (const [phase, run] of [
        ['streaming warm-up', target.streamWarmup],
        ['streaming', target.streaming],
      ]) {
        if (run.failed) failures.push(`${target.label}, ${phase}: ${run.failed} of ${run.requests} failed: ${run.failures.join('; ')}`);
      }
    }

    const { direct, gateway } = targets;
    const strip = ({ headers: _h, url: _u, body: _b, streamBody: _s, responseText: _r, textOf: _t, port: _p, ...rest }) => rest;
    report = {
      durationS: options.duration,
      streams: options.streams,
      warmup: WARMUP,
      throughputConnections: THROUGHPUT_CONNECTIONS,
      tracing: options.tracing,
      otlpEndpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || null,
      fake: { latencyMs: options.latencyMs, tokenDelayMs: options.tokenDelayMs },
      machine: info,
      otherProcesses: others,
      targets: { direct: strip(direct), gateway: strip(gateway) },
      added: {
        p50Ms: gateway.sequential.exactLatencyMs.p50 - direct.sequential.exactLatencyMs.p50,
        p99Ms: gateway.sequential.exactLatencyMs.p99 - direct.sequential.exactLatencyMs.p99,
        meanMs: gateway.sequential.exactLatencyMs.mean - direct.sequential.exactLatencyMs.mean,
        firstEventP50Ms: gateway.streaming.firstEventMs.p50 - direct.streaming.firstEventMs.p50,
        firstEventP99Ms: gateway.streaming.firstEventMs.p99 - direct.streaming.firstEventMs.p99,
        firstTextP50Ms: gateway.streaming.firstTextMs.p50 - direct.streaming.firstTextMs.p50,
        firstTextP99Ms: gateway.streaming.firstTextMs.p99 - direct.streaming.firstTextMs.p99,
        rpsRatio: gateway.concurrent.requestsPerSecond / direct.concurrent.requestsPerSecond,
        rpsRatioSequential: gateway.sequential.requestsPerSecond / direct.sequential.requestsPerSecond,
      },
      aims: AIMS,
      failures,
    };
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    const stops = await cleanup();
    for (const stop of stops) {
      if (stop.alreadyExited)
        failures.push(`${stop.process} exited on its own during the bench (code ${stop.code}, signal ${stop.signal})`);
      else if (stop.killed) failures.push(`${stop.process} still running ${EXIT_TIMEOUT_MS / 1000} s after SIGTERM (killed)`);
      else if (stop.code !== 0) failures.push(`${stop.process} exited with ${stop.code ?? stop.signal} after SIGTERM`);
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
