#!/usr/bin/env node
// Agent invoke: what the agent path adds to the model call, and what one read_file round
// costs (docs/benchmarks/agents.md).
//
//   npm run build && npm run bench:agents [-- --duration N] [--requests N] [--json]
//
// Starts its own fake model provider (no latency), a local HTTPS file server with a test CA
// (the agent service trusts it through ATTACHMENT_EXTRA_CA_FILE; loopback allowlisted), and
// catalog, invocation, agent and gateway from dist/ with `npm run up`'s defaults, after the
// migrations. Loads the shipped catalog plus a tool-calling fake model, creates a workspace
// on the enterprise plan and an agent. Then, each after a warm-up:
//   - direct: the fake provider's chat completion, D s sequential on one keep-alive
//     connection (exact timings) and D s at 64 connections (autocannon);
//   - agent: POST /v1/agent/invoke, non-streaming, no tools, the same two phases, with the CPU
//     per request of every process on the path;
//   - read_file: N sequential agent invokes with one PDF attachment, the fake scripted to
//     call read_file once and then answer: two model turns, one fetch through the SSRF
//     guard, type detection and PDF extraction. Each request names a new URL (a query
//     string), so nothing comes from the reader's cache; a second series repeats one URL
//     (the cached path). The cost of the round is its p50 minus the agent p50.
// Needs PostgreSQL, Redis and NATS (scripts/ensure-infra.sh) and the dev dependencies
// (selfsigned and pdf-lib, for the test CA and the PDF). Markdown on stdout (JSON with
// --json), progress on stderr. Exits 1 when a request failed or something did not start.
import { rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  benchCatalogYaml,
  cannon,
  exitUnlessBuilt,
  fmt,
  freePort,
  httpRequest,
  infraProcesses,
  log,
  machine,
  restoreShippedCatalog,
  runNode,
  settle,
  startProcess,
  stopAll,
  summarize,
  waitFor,
  waitForGatewayToSee,
  ROOT,
  distEntries,
} from './bench-lib.mjs';

const ENTRIES = distEntries('migrate', 'cli', 'fake', 'catalog', 'invocation', 'agent', 'gateway', 'testing');
const MODEL = 'fake-agent-bench';
const CONNECTIONS = 64;
const QUESTION = 'What is the capital of France?';

function parseArgs(argv) {
  const options = { duration: 5, requests: 200, json: false };
  for (let i = 0; i < argv.length; i += 1) {
    const [name, inline] = argv[i].split('=');
    const value = () => Number(inline ?? argv[++i]);
    if (name === '--json') options.json = true;
    else if (name === '--duration') options.duration = value();
    else if (name === '--requests') options.requests = value();
    else {
      process.stderr.write('usage: node scripts/bench/agents.mjs [--duration N] [--requests N] [--json]\n');
      process.exit(2);
    }
  }
  return options;
}

/** One POST on `agent` (keep-alive), timed from just before it is written; resolves with status, ms and body. */
function timedPost(port, path, headers, body, agent) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started, body: text }));
      },
    );
    req.on('error', (error) => resolve({ status: 0, ms: performance.now() - started, body: String(error) }));
    req.end(body);
  });
}

/** `count` sequential requests (or `durationS` seconds of them); `before(i)` runs untimed before each. */
async function sequential(port, path, headers, bodyOf, { count = Infinity, durationS = Infinity, before, check }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  const failures = [];
  const until = performance.now() + durationS * 1000;
  for (let i = 0; i < count && performance.now() < until; i += 1) {
    if (before) await before(i);
    const result = await timedPost(port, path, headers, bodyOf(i), agent);
    const problem = result.status !== 200 ? `HTTP ${result.status}: ${result.body.slice(0, 200)}` : check?.(JSON.parse(result.body));
    if (problem) failures.push(problem);
    else times.push(result.ms);
  }
  agent.destroy();
  return { latency: summarize(times), failures };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  exitUnlessBuilt(ENTRIES);
  const require = createRequire(import.meta.url);
  const { TestHttpsServer, buildFixtureDocuments } = require(join(ROOT, ENTRIES.testing));
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle';
  const env = { ...process.env, HOST: '127.0.0.1', DATABASE_URL: databaseUrl };
  const tmp = mkdtempSync(join(tmpdir(), 'waggle-bench-agents-'));
  const procs = [];
  const failures = [];
  let files;
  let catalogLoaded = false;
  try {
    log('migrations');
    runNode(ENTRIES.migrate, [], env, 'migrate');
    files = await TestHttpsServer.start();
    const fixtures = await buildFixtureDocuments();
    const pdf = fixtures.pdf;
    files.serve('/report.pdf', pdf.bytes, pdf.contentType);

    const fakePort = await freePort();
    const fake = startProcess('fake-provider', ENTRIES.fake, {
      ...env,
      FAKE_PROVIDER_PORT: String(fakePort),
      FAKE_PROVIDER_HOST: '127.0.0.1',
    });
    procs.push(fake);
    await waitFor(fake, 'listening', async () => (await httpRequest(fakePort, '/_fake/requests')).status === 200);
    const stack = {};
    const appEnv = {
      ...env,
      FAKE_BASE_URL: `http://127.0.0.1:${fakePort}/v1`,
      FAKE_API_KEY: 'bench',
      PROVIDER_MAX_RETRIES: '0',
      ATTACHMENT_URL_ALLOWLIST: '127.0.0.1',
      ATTACHMENT_EXTRA_CA_FILE: files.writeCaFile(tmp),
    };
    for (const name of ['catalog', 'invocation', 'agent', 'gateway']) {
      const port = await freePort();
      stack[name] = Object.assign(startProcess(name, ENTRIES[name], { ...appEnv, PORT: String(port) }), { port });
      procs.push(stack[name]);
    }
    for (const proc of Object.values(stack))
      await waitFor(proc, 'live', async () => (await httpRequest(proc.port, '/health/live')).status === 200);
    await waitForGatewayToSee(stack.gateway, ['catalog', 'invocation', 'agent']);

    const catalogFile = join(tmp, 'models.yaml');
    writeFileSync(catalogFile, benchCatalogYaml('2099.9.2', MODEL, { tool_calling: true }));
    catalogLoaded = true;
    runNode(ENTRIES.cli, ['catalog', 'load', '--file', catalogFile, '--json'], env, 'catalog load');
    const created = JSON.parse(
      runNode(ENTRIES.cli, ['workspace', 'create', '--name', 'bench-agents', '--plan', 'enterprise', '--json'], env, 'workspace create'),
    );
    const auth = { authorization: `Bearer ${created.api_key}` };
    const made = await timedPost(
      stack.gateway.port,
      `/v1/public/workspaces/${created.workspace_id}/agents`,
      auth,
      JSON.stringify({ agent: { name: 'bench', llm_model: MODEL, model_type: 'llm', instruction_prompt: 'Answer briefly.' } }),
      undefined,
    );
    if (made.status !== 200) throw new Error(`agent create answered ${made.status}: ${made.body}`);
    const agentId = JSON.parse(made.body).agent.id;
    const script = async (behaviour) => {
      const answer = await httpRequest(fakePort, `/_fake/models/${MODEL}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(behaviour),
      });
      if (answer.status >= 300) throw new Error(`scripting the fake answered ${answer.status}`);
    };
    await script({});

    const pathProcs = ['gateway', 'agent', 'invocation', 'catalog'].map((name) => ({ name, pid: stack[name].pid }));
    const infra = infraProcesses({
      natsUrl: process.env.NATS_URL || 'nats://127.0.0.1:4222',
      redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
      databaseUrl,
    });
    const measured = [...pathProcs, ...infra.procs, { name: 'fake', pid: fake.pid }];
    const direct = {
      port: fakePort,
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer bench' },
      body: JSON.stringify({
        model: MODEL,
        messages: [
          { role: 'system', content: 'Answer briefly.' },
          { role: 'user', content: QUESTION },
        ],
      }),
      check: (answer) => (answer?.choices?.[0]?.message?.content ? undefined : 'no answer'),
    };
    const agentLeg = {
      port: stack.gateway.port,
      path: '/v1/agent/invoke',
      headers: auth,
      body: JSON.stringify({ agent: agentId, message: QUESTION }),
      check: (answer) => (answer?.response === `Echo: ${QUESTION}` ? undefined : `answered ${JSON.stringify(answer).slice(0, 200)}`),
    };
    const legs = {};
    for (const [key, leg] of Object.entries({ direct, agent: agentLeg })) {
      log(`${key}: warm-up`);
      await cannon({
        url: `http://127.0.0.1:${leg.port}${leg.path}`,
        method: 'POST',
        headers: { ...leg.headers, 'content-type': 'application/json' },
        body: leg.body,
        connections: 8,
        duration: 3,
      });
      await settle(measured.filter((proc) => proc.name !== 'fake'));
      log(`${key}: ${options.duration} s at 1 connection`);
      const one = await sequential(leg.port, leg.path, leg.headers, () => leg.body, { durationS: options.duration, check: leg.check });
      await settle(measured.filter((proc) => proc.name !== 'fake'));
      log(`${key}: ${options.duration} s at ${CONNECTIONS} connections`);
      const many = await cannon({
        url: `http://127.0.0.1:${leg.port}${leg.path}`,
        method: 'POST',
        headers: { ...leg.headers, 'content-type': 'application/json' },
        body: leg.body,
        connections: CONNECTIONS,
        duration: options.duration,
        procs: measured,
      });
      legs[key] = {
        latency: one.latency,
        requestsPerSecond: many.requestsPerSecond,
        cpuMsPerRequest: many.cpuMsPerRequest,
        failed: one.failures.length + many.failed,
      };
      if (one.failures.length || many.failed)
        failures.push(`${key}: ${one.failures.length + many.failed} failed (${one.failures[0] ?? JSON.stringify(many.statusCodes)})`);
    }

    const readLeg = async (label, urlOf) => {
      log(`read_file: ${options.requests} sequential invokes, ${label}`);
      await settle(measured.filter((proc) => proc.name !== 'fake'));
      return sequential(
        stack.gateway.port,
        '/v1/agent/invoke',
        auth,
        (i) => JSON.stringify({ agent: agentId, message: 'Summarise the report', attachments: [urlOf(i)] }),
        {
          count: options.requests,
          before: (i) =>
            script({
              turns: [
                { toolCalls: [{ name: 'read_file', arguments: { file_url: urlOf(i) } }] },
                { response: 'The report says members grew.' },
              ],
            }),
          check: (answer) => {
            const observation = answer?.tool_calls?.[0]?.observation;
            if (!observation || !JSON.parse(observation).content?.includes(pdf.expectedText))
              return `no PDF text in the observation: ${String(observation).slice(0, 200)}`;
            return answer.response === 'The report says members grew.' ? undefined : `answered ${answer.response}`;
          },
        },
      );
    };
    const fresh = await readLeg('a new URL each (fetched and parsed every time)', (i) => files.url(`/report.pdf?n=${i}`));
    const cached = await readLeg('one URL (the reader cache)', () => files.url('/report.pdf?n=cached'));
    for (const [label, run] of [
      ['read_file (fresh)', fresh],
      ['read_file (cached)', cached],
    ]) {
      if (run.failures.length) failures.push(`${label}: ${run.failures.length} failed (${run.failures[0]})`);
    }

    const report = {
      machine: machine(),
      options,
      pdfBytes: pdf.bytes.length,
      direct: legs.direct,
      agent: legs.agent,
      added: { p50Ms: legs.agent.latency.p50 - legs.direct.latency.p50, p99Ms: legs.agent.latency.p99 - legs.direct.latency.p99 },
      readFile: {
        fresh: fresh.latency,
        cached: cached.latency,
        roundP50Ms: fresh.latency.p50 - legs.agent.latency.p50,
        cachedRoundP50Ms: cached.latency.p50 - legs.agent.latency.p50,
      },
      failures,
    };
    process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : markdown(report));
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    if (catalogLoaded) restoreShippedCatalog(ENTRIES.cli, env, failures);
    await stopAll(procs, failures);
    await files?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const failure of failures) log(`FAILED: ${failure}`);
  process.exit(failures.length ? 1 : 0);
}

function markdown(r) {
  const ms = (value) => fmt(value, 3);
  const cpu = (leg) =>
    ['gateway', 'agent', 'invocation', 'NATS', 'Redis', 'PostgreSQL'].map((name) => fmt(leg.cpuMsPerRequest?.[name], 3)).join(' | ');
  return [
    `Agent invoke, non-streaming, no tools, against the fake provider (0 ms); ${r.options.duration} s per phase, ${CONNECTIONS} connections for throughput; Node ${r.machine.node}, ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.date}.`,
    '',
    `| leg | p50 / p99 at 1 conn (ms) | req/s at ${CONNECTIONS} conn |`,
    '| --- | ---: | ---: |',
    `| direct (fake provider) | ${ms(r.direct.latency.p50)} / ${ms(r.direct.latency.p99)} | ${fmt(r.direct.requestsPerSecond, 0)} |`,
    `| agent invoke (gateway → agent → provider) | ${ms(r.agent.latency.p50)} / ${ms(r.agent.latency.p99)} | ${fmt(r.agent.requestsPerSecond, 0)} |`,
    '',
    `**Added by the agent path: p50 ${ms(r.added.p50Ms)} ms, p99 ${ms(r.added.p99Ms)} ms.**`,
    '',
    `CPU per agent request at ${CONNECTIONS} connections (ms): gateway | agent | invocation | NATS | Redis | PostgreSQL: ${cpu(r.agent)}`,
    '',
    `| read_file round (PDF, ${r.pdfBytes} bytes, ${r.options.requests} requests each) | p50 / p99 (ms) | the round, p50 minus the agent p50 (ms) |`,
    '| --- | ---: | ---: |',
    `| a new URL each time (fetch, detect, extract) | ${ms(r.readFile.fresh.p50)} / ${ms(r.readFile.fresh.p99)} | ${ms(r.readFile.roundP50Ms)} |`,
    `| the same URL (the reader's cache) | ${ms(r.readFile.cached.p50)} / ${ms(r.readFile.cached.p99)} | ${ms(r.readFile.cachedRoundP50Ms)} |`,
    '',
  ].join('\n');
}

await main();
