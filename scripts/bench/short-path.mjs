#!/usr/bin/env node
// The gateway's short path for run-starting routes, on against off, side by side
// (docs/benchmarks/invoke.md, "Issue 39, part 3"): the machine is shared and its load moves
// from minute to minute, more than the short path moves anything, so instead of two runs of the
// invoke bench this starts ONE stack (fake provider, catalog, invocation: bench-lib's
// startPromptStack, with LOG_LEVEL as `npm run up` leaves it, tracing on and unexported) and TWO
// gateways in front of it, one with GATEWAY_SHORT_PATH=on, one with off, and alternates between
// them in short legs: in each of R rounds (the order flipping each round), for each gateway,
// D s of `POST /v1/prompt/invoke` at 64 connections (autocannon) with the gateway's CPU time
// per request (/proc), then N sequential requests on one keep-alive connection, each timed.
// Figures: medians over the rounds of req/s and gateway CPU per request, and p50/p99 of the
// pooled sequential times.
//
//   npm run build && npm run bench:short-path -- [--rounds N] [--duration N] [--requests N] [--json]
//
// Needs PostgreSQL, Redis and NATS. Markdown on stdout (JSON with --json), progress on stderr.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cannon,
  DIST_ENTRIES,
  distEntries,
  exitUnlessBuilt,
  fmt,
  freePort,
  httpRequest,
  log,
  machine,
  median,
  restoreShippedCatalog,
  runNode,
  settle,
  startPromptStack,
  startProcess,
  stopAll,
  summarize,
  waitFor,
  waitForGatewayToSee,
} from './bench-lib.mjs';

const MODEL = 'fake-short-path-bench';
const DEPLOYMENT = 'short-path-bench';
const CONNECTIONS = 64;

function parseArgs(argv) {
  const options = { rounds: 6, duration: 5, requests: 500, json: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--json') options.json = true;
    else if (['--rounds', '--duration', '--requests'].includes(arg)) {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 1) throw new Error(`${arg} needs a whole number ≥ 1`);
      options[arg.slice(2)] = value;
    } else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

const env = { ...process.env, HOST: '127.0.0.1', DATABASE_URL: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle' };
for (const name of [
  'GATEWAY_SHORT_PATH',
  'LOG_LEVEL',
  'OTEL_SDK_DISABLED',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
])
  delete env[name];

/** One JSON POST on the keep-alive agent: its status and its time (ms). */
function timedPost(port, agent, headers, payload) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/prompt/invoke',
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': payload.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  exitUnlessBuilt(distEntries('migrate', 'cli', 'catalog', 'invocation', 'gateway', 'fake'));
  log('running migrations');
  runNode(DIST_ENTRIES.migrate, [], env, 'migrations');
  const procs = [];
  const failures = [];
  const state = { catalogLoaded: false };
  const tmp = mkdtempSync(join(tmpdir(), 'waggle-bench-short-path-'));
  let report;
  try {
    const stack = await startPromptStack({
      apps: ['catalog', 'invocation', 'gateway'],
      env,
      tmp,
      model: MODEL,
      deployment: DEPLOYMENT,
      catalogVersion: '2099.39.3',
      workspace: 'bench short path',
      procs,
      state,
    });
    // The second gateway, as the first but with the short path off.
    const offPort = await freePort();
    const off = Object.assign(
      startProcess('gateway-off', DIST_ENTRIES.gateway, { ...env, PORT: String(offPort), GATEWAY_SHORT_PATH: 'off' }),
      {
        port: offPort,
      },
    );
    procs.push(off);
    await waitFor(off, 'live', async () => (await httpRequest(offPort, '/health/live')).status === 200);
    await waitForGatewayToSee(off, ['catalog', 'invocation']);
    const gateways = { on: stack.gateway, off };
    const headers = { ...stack.auth, 'content-type': 'application/json' };
    const body = JSON.stringify({ deployment: DEPLOYMENT, variant: 'default', inputs: { question: 'Is the short path shorter?' } });
    const payload = Buffer.from(body);
    const quiet = [stack.fake, ...stack.stack, off];

    log('warming up (3 s at 8 connections, 200 requests, each gateway)');
    for (const side of ['on', 'off']) {
      await cannon({
        url: `http://127.0.0.1:${gateways[side].port}/v1/prompt/invoke`,
        method: 'POST',
        headers,
        body,
        connections: 8,
        duration: 3,
      });
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = 0; i < 200; i += 1) await timedPost(gateways[side].port, agent, headers, payload);
      agent.destroy();
    }

    const legs = { on: { rps: [], cpu: [], cpuMain: [], times: [] }, off: { rps: [], cpu: [], cpuMain: [], times: [] } };
    for (let round = 0; round < options.rounds; round += 1) {
      for (const side of round % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
        const gateway = gateways[side];
        await settle(quiet);
        const run = await cannon({
          url: `http://127.0.0.1:${gateway.port}/v1/prompt/invoke`,
          method: 'POST',
          headers,
          body,
          connections: CONNECTIONS,
          duration: options.duration,
          procs: [{ name: 'gateway', pid: gateway.pid }],
        });
        if (run.failed) failures.push(`${side}: ${run.failed} of ${run.requests} failed (${JSON.stringify(run.statusCodes)})`);
        legs[side].rps.push(run.requestsPerSecond);
        legs[side].cpu.push(run.cpuMsPerRequest.gateway);
        legs[side].cpuMain.push(run.cpuMsPerRequest.mainThreads.gateway);
        await settle(quiet);
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        for (let i = 0; i < options.requests; i += 1) {
          const answer = await timedPost(gateway.port, agent, headers, payload);
          if (answer.status !== 200) failures.push(`${side}: HTTP ${answer.status}`);
          legs[side].times.push(answer.ms);
        }
        agent.destroy();
        log(
          `round ${round + 1}/${options.rounds}, short path ${side}: ${Math.round(run.requestsPerSecond)} req/s, gateway ${fmt(run.cpuMsPerRequest.gateway, 3)} ms CPU per request`,
        );
      }
    }
    const figures = (leg) => ({
      requestsPerSecond: median(leg.rps),
      requestsPerSecondRounds: leg.rps,
      gatewayCpuMsPerRequest: median(leg.cpu),
      gatewayCpuMsPerRequestRounds: leg.cpu,
      gatewayMainThreadCpuMsPerRequest: median(leg.cpuMain),
      latencyMs: summarize(leg.times),
    });
    report = { machine: machine(), options, on: figures(legs.on), off: figures(legs.off), failures };
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    if (state.catalogLoaded) restoreShippedCatalog(DIST_ENTRIES.cli, env, failures);
    await stopAll(procs, failures);
    rmSync(tmp, { recursive: true, force: true });
  }
  if (!report) {
    process.stderr.write(`bench failed:\n${failures.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${markdown(report)}\n`);
  process.exit(failures.length ? 1 : 0);
}

function markdown({ on, off, options, machine: info, failures }) {
  const row = (name, leg) =>
    `| ${name} | ${fmt(leg.requestsPerSecond, 0)} (${leg.requestsPerSecondRounds.map((v) => fmt(v, 0)).join(', ')}) | ${fmt(leg.gatewayCpuMsPerRequest, 3)} (${leg.gatewayCpuMsPerRequestRounds.map((v) => fmt(v, 3)).join(', ')}) | ${fmt(leg.gatewayMainThreadCpuMsPerRequest, 3)} | ${fmt(leg.latencyMs.p50, 3)} / ${fmt(leg.latencyMs.p99, 3)} |`;
  return [
    `| short path | req/s at ${CONNECTIONS} conn, median (rounds) | gateway CPU per request (ms), median (rounds) | its JavaScript thread (ms) | p50 / p99 at 1 conn (ms) |`,
    '| --- | ---: | ---: | ---: | ---: |',
    row('on', on),
    row('off', off),
    '',
    `on ÷ off: req/s ${fmt(on.requestsPerSecond / off.requestsPerSecond, 3)}, gateway CPU per request ${fmt(on.gatewayCpuMsPerRequest / off.gatewayCpuMsPerRequest, 3)}, p50 ${fmt(on.latencyMs.p50 / off.latencyMs.p50, 3)}.`,
    '',
    `${options.rounds} rounds, each ${options.duration} s at ${CONNECTIONS} connections then ${options.requests} sequential requests per gateway, the order flipping each round. Node ${info.node}, ${info.cpu}, ${info.cores} cores, ${info.date}; load average ${info.loadAverage}.`,
    ...(failures.length ? ['', `Failures: ${failures.join('; ')}`] : []),
  ].join('\n');
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
