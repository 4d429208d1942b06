#!/usr/bin/env node
// What usage governance costs on the invoke path (docs/benchmarks/governance.md): the latency a
// workspace with rate limits and budgets adds to `POST /v1/prompt/invoke` over one with none,
// and the Redis commands (round trips) per request.
//
//   npm run build && npm run bench:governance [-- --rounds N] [--requests N] [--json]
//
// Starts the fake model provider, catalog, invocation and gateway from dist/ (bench-lib's
// startPromptStack) and makes two workspaces with the same prompt deployment:
//   - plain: governance loaded but nothing configured (the admission script still runs: the
//     daily meter is in it);
//   - governed: its API key limited in requests and tokens per minute, and budgets on the
//     workspace, the key and the end user, per day and per month (limits far above what the
//     bench uses, so nothing is refused), every request naming the end user.
// The projections are written into Redis as the invocation service's projection writer writes
// them. Then, in R interleaved rounds, N sequential requests on one keep-alive connection per
// workspace (the order alternating from round to round), each timed with performance.now();
// and, apart, the Redis commands per request of each (INFO commandstats, net of an idle window
// of the same length). Needs PostgreSQL, Redis and NATS. Markdown on stdout (JSON with --json).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import {
  benchPromptYaml,
  DIST_ENTRIES,
  distEntries,
  exitUnlessBuilt,
  fmt,
  log,
  machine,
  percentile,
  restoreShippedCatalog,
  runNode,
  settle,
  sleep,
  startPromptStack,
  stopAll,
} from './bench-lib.mjs';

const MODEL = 'fake-governance-bench';
const DEPLOYMENT = 'governance-bench';
const HUGE = 1_000_000_000_000;

function parseArgs(argv) {
  const options = { rounds: 5, requests: 200, json: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--json') options.json = true;
    else if (arg === '--rounds' || arg === '--requests') {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 1) throw new Error(`${arg} needs a whole number ≥ 1`);
      options[arg.slice(2)] = value;
    } else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

const env = {
  ...process.env,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  DATABASE_URL: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle',
};
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** One JSON POST on the keep-alive agent: its status and its time (ms). */
function timedPost(port, agent, path, headers, body) {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length },
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

async function redisCalls(redis) {
  const calls = {};
  for (const match of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm))
    calls[match[1]] = { calls: Number(match[2]), usec: Number(match[3]) };
  return calls;
}

function diff(after, before) {
  const out = {};
  for (const [name, value] of Object.entries(after)) {
    const calls = value.calls - (before[name]?.calls ?? 0);
    if (calls > 0) out[name] = { calls, usec: value.usec - (before[name]?.usec ?? 0) };
  }
  return out;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  exitUnlessBuilt(distEntries('migrate', 'cli', 'catalog', 'invocation', 'gateway', 'fake'));
  log('running migrations');
  runNode(DIST_ENTRIES.migrate, [], env, 'migrations');
  const procs = [];
  const failures = [];
  const state = { catalogLoaded: false };
  const tmp = mkdtempSync(join(tmpdir(), 'waggle-bench-governance-'));
  const redis = new Redis(redisUrl);
  let report;
  try {
    const stack = await startPromptStack({
      apps: ['catalog', 'invocation', 'gateway'],
      env,
      tmp,
      model: MODEL,
      deployment: DEPLOYMENT,
      catalogVersion: '2099.37.9',
      workspace: 'bench governance plain',
      procs,
      state,
    });
    const port = stack.gateway.port;
    // The governed workspace: a second one with the same deployment and a key whose id the projection names.
    const created = JSON.parse(
      runNode(
        DIST_ENTRIES.cli,
        ['workspace', 'create', '--name', 'bench governance', '--plan', 'enterprise', '--json'],
        env,
        'workspace create',
      ),
    );
    const file = join(tmp, 'governed.yaml');
    writeFileSync(file, benchPromptYaml(DEPLOYMENT, MODEL));
    runNode(DIST_ENTRIES.cli, ['apply', '-f', file, '--workspace', created.workspace_id, '--json'], env, 'apply');
    const key = JSON.parse(runNode(DIST_ENTRIES.cli, ['key', 'create', created.workspace_id, '--json'], env, 'key create'));
    const budget = (id) => `${HUGE}|${id}|80,100`;
    // As the projection writer writes them (libs/contracts governance.ts: GovernanceKeys, ProjectionFields).
    await redis.hset(`waggle:gov:{${created.workspace_id}}:cfg`, {
      version: '1',
      [`limit:key:${key.id}`]: `1000000|${HUGE}`,
      'limit:user:bench-user': `1000000|${HUGE}`,
      'budget:ws:day': budget('b1'),
      'budget:ws:month': budget('b2'),
      [`budget:key:${key.id}:day`]: budget('b3'),
      [`budget:key:${key.id}:month`]: budget('b4'),
      'budget:user:bench-user:day': budget('b5'),
      'budget:user:bench-user:month': budget('b6'),
    });
    // The plain workspace's projection is loaded by its first run (the cold path), during the warm-up.
    const legs = {
      plain: stack.auth,
      governed: { authorization: `Bearer ${key.api_key}` },
    };
    const body = { deployment: DEPLOYMENT, variant: 'default', inputs: { question: 'How much does governance cost?' }, user: 'bench-user' };
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = async (leg) => {
      const answer = await timedPost(port, agent, '/v1/prompt/invoke', legs[leg], body);
      if (answer.status !== 200) failures.push(`${leg}: HTTP ${answer.status}`);
      return answer.ms;
    };
    log('warming up (100 requests per workspace)');
    for (let i = 0; i < 100; i += 1) for (const leg of ['plain', 'governed']) await send(leg);

    const samples = { plain: [], governed: [] };
    for (let round = 0; round < options.rounds; round += 1) {
      const order = round % 2 === 0 ? ['plain', 'governed'] : ['governed', 'plain'];
      for (const leg of order) {
        await settle(procs);
        for (let i = 0; i < options.requests; i += 1) samples[leg].push(await send(leg));
      }
      log(`round ${round + 1}/${options.rounds} done`);
    }

    log('counting Redis commands per request');
    const counts = {};
    const COUNTED = 200;
    await settle(procs);
    let before = await redisCalls(redis);
    const idleStarted = performance.now();
    await sleep(2_000);
    const idle = diff(await redisCalls(redis), before);
    const idleMs = performance.now() - idleStarted;
    for (const leg of ['plain', 'governed']) {
      await settle(procs);
      before = await redisCalls(redis);
      const started = performance.now();
      for (let i = 0; i < COUNTED; i += 1) await send(leg);
      // The ledger's reconciliation runs after the answers: wait until it has gone quiet.
      await settle(procs);
      const elapsed = performance.now() - started;
      const raw = diff(await redisCalls(redis), before);
      counts[leg] = Object.fromEntries(
        Object.entries(raw).map(([name, value]) => {
          const net = value.calls - ((idle[name]?.calls ?? 0) * elapsed) / idleMs;
          return [name, { perRequest: net / COUNTED, usecPerCall: value.usec / value.calls }];
        }),
      );
    }
    const stats = (values) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), count: sorted.length };
    };
    report = {
      machine: machine(),
      rounds: options.rounds,
      requests: options.requests,
      latency: { plain: stats(samples.plain), governed: stats(samples.governed) },
      counts,
      failures,
    };
    report.added = {
      p50: report.latency.governed.p50 - report.latency.plain.p50,
      p95: report.latency.governed.p95 - report.latency.plain.p95,
    };
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    if (state.catalogLoaded) restoreShippedCatalog(DIST_ENTRIES.cli, env, failures);
    await stopAll(procs, failures);
    redis.disconnect();
    rmSync(tmp, { recursive: true, force: true });
  }
  if (!report) {
    process.stderr.write(`bench failed:\n${failures.join('\n')}\n`);
    process.exit(1);
  }
  if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${markdown(report)}\n`);
  process.exit(failures.length ? 1 : 0);
}

function markdown(report) {
  const { plain, governed } = report.latency;
  const lines = [
    '| workspace | p50 (ms) | p95 (ms) | p99 (ms) | requests |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| plain (nothing configured) | ${fmt(plain.p50, 3)} | ${fmt(plain.p95, 3)} | ${fmt(plain.p99, 3)} | ${plain.count} |`,
    `| governed (key RPM + TPM, workspace + key + user budgets, day + month) | ${fmt(governed.p50, 3)} | ${fmt(governed.p95, 3)} | ${fmt(governed.p99, 3)} | ${governed.count} |`,
    '',
    `Added by governance: p50 ${fmt(report.added.p50, 3)} ms, p95 ${fmt(report.added.p95, 3)} ms (aim: p50 ≤ 0.2 ms — ${report.added.p50 <= 0.2 ? 'met' : 'NOT met'}).`,
    '',
    'Redis commands per request (INFO commandstats, net of idle), and the server time per call:',
    '',
    '| command | plain per request | governed per request | plain µs per call | governed µs per call |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  const names = [...new Set([...Object.keys(report.counts.plain ?? {}), ...Object.keys(report.counts.governed ?? {})])].sort();
  for (const name of names) {
    const p = report.counts.plain?.[name];
    const g = report.counts.governed?.[name];
    if ((p?.perRequest ?? 0) < 0.05 && (g?.perRequest ?? 0) < 0.05) continue;
    lines.push(
      `| ${name} | ${fmt(p?.perRequest ?? 0)} | ${fmt(g?.perRequest ?? 0)} | ${fmt(p?.usecPerCall ?? NaN, 1)} | ${fmt(g?.usecPerCall ?? NaN, 1)} |`,
    );
  }
  const m = report.machine;
  lines.push(
    '',
    `${report.rounds} interleaved rounds of ${report.requests} sequential requests per workspace on one keep-alive connection. Node ${m.node}, ${m.cpu}, ${m.cores} cores, ${m.date}; load average ${m.loadAverage}.`,
  );
  if (report.failures.length) lines.push('', 'Failures:', ...report.failures.map((failure) => `- ${failure}`));
  return lines.join('\n');
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
