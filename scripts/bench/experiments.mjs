#!/usr/bin/env node
// Experiments and releases, measured (docs/benchmarks/experiments.md): what serving a label, a
// pinned version or a sticky split costs a prompt invoke over the deployed version, and how many
// experiment cells per second the invocation service runs against the fake provider with
// evaluators on.
//
//   npm run build && npm run bench:experiments [-- --rounds N] [--requests N] [--rows N] [--json]
//
// Starts the fake model provider, catalog, invocation and gateway from dist/ (bench-lib's
// startPromptStack), applies a deployment whose variant `default` has two versions (the second
// staged) and a variant `split` serving a 90/10 split over `default` and `other`, labels version 2
// `staging`, then:
//   - latency: R interleaved rounds (the order rotating) of N sequential invokes per leg on one
//     keep-alive connection each: deployed (the contract's invoke), `label: staging`,
//     `version: 1`, and the split variant with a `user`, each timed with performance.now();
//   - throughput: a dataset of M rows, an experiment run over two candidates (the deployed version
//     and an inline variant) with the evaluators exact, contains, regex, json_schema-free text
//     checks, max_latency_ms and max_cost, followed to its end; cells per second from the run's own
//     started_at/finished_at (the queue's work, not the HTTP call that created it).
// Needs PostgreSQL, Redis and NATS. Markdown on stdout (JSON with --json).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import {
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

const MODEL = 'fake-experiments-bench';
const DEPLOYMENT = 'experiments-bench';

function parseArgs(argv) {
  const options = { rounds: 4, requests: 200, rows: 500, json: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--json') options.json = true;
    else if (['--rounds', '--requests', '--rows'].includes(arg)) {
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

/** One JSON request on the keep-alive agent: its status, parsed body and time (ms). */
function call(port, agent, method, path, headers, body) {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        headers: { ...headers, ...(payload && { 'content-type': 'application/json', 'content-length': payload.length }) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const ms = performance.now() - started;
          const text = Buffer.concat(chunks).toString('utf8');
          let json = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = { raw: text };
          }
          resolve({ status: res.statusCode, body: json, ms });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The deployment with two versions of `default` (the second staged), `other`, and the 90/10 split. */
function promptsYaml(stage) {
  const variant = (name, content, extra = {}) => ({ name, model: MODEL, messages: [{ role: 'user', content }], ...extra });
  return YAML.stringify({
    prompts: [
      {
        deployment: DEPLOYMENT,
        variants: [
          stage ? variant('default', 'v2: {{ question }}', { stage: true }) : variant('default', '{{ question }}'),
          variant('other', 'other: {{ question }}'),
          variant('split', '{{ question }}', {
            split: [
              { variant: 'default', weight: 90 },
              { variant: 'other', weight: 10 },
            ],
          }),
        ],
      },
    ],
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
  const tmp = mkdtempSync(join(tmpdir(), 'waggle-bench-experiments-'));
  let report;
  try {
    const stack = await startPromptStack({
      apps: ['catalog', 'invocation', 'gateway'],
      env,
      tmp,
      model: MODEL,
      deployment: DEPLOYMENT,
      catalogVersion: '2099.38.1',
      workspace: 'bench experiments',
      procs,
      state,
    });
    const port = stack.gateway.port;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const api = async (method, path, body, expected) => {
      const answer = await call(port, agent, method, path, stack.auth, body);
      if (!expected.includes(answer.status)) throw new Error(`${method} ${path}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    // Version 1 of every variant, then version 2 of `default` staged, labelled `staging`.
    await api('POST', '/v1/private/prompts/apply', YAML.parse(promptsYaml(false)), [200, 201]);
    await api('POST', '/v1/private/prompts/apply', YAML.parse(promptsYaml(true)), [200, 201]);
    await api('PUT', `/v1/private/prompts/${DEPLOYMENT}/variants/default/labels/staging`, { version: 2 }, [200]);

    const question = { question: 'What does a label cost?' };
    const legs = {
      deployed: { deployment: DEPLOYMENT, variant: 'default', inputs: question },
      label: { deployment: DEPLOYMENT, variant: 'default', inputs: question, label: 'staging' },
      version: { deployment: DEPLOYMENT, variant: 'default', inputs: question, version: 1 },
      split: { deployment: DEPLOYMENT, variant: 'split', inputs: question },
    };
    let userCounter = 0;
    const send = async (leg) => {
      // The split leg names a different user each time: each request computes its bucket.
      const body = leg === 'split' ? { ...legs.split, user: `bench-user-${(userCounter += 1)}` } : legs[leg];
      const answer = await call(port, agent, 'POST', '/v1/prompt/invoke', stack.auth, body);
      if (answer.status !== 200) failures.push(`${leg}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.ms;
    };
    const names = Object.keys(legs);
    log('warming up (100 requests per leg)');
    for (let i = 0; i < 100; i += 1) for (const leg of names) await send(leg);
    const samples = Object.fromEntries(names.map((leg) => [leg, []]));
    for (let round = 0; round < options.rounds; round += 1) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      for (const leg of order) {
        await settle(procs);
        for (let i = 0; i < options.requests; i += 1) samples[leg].push(await send(leg));
      }
      log(`latency round ${round + 1}/${options.rounds} done`);
    }

    log(`experiment: ${options.rows} rows × 2 candidates`);
    const dataset = await api('POST', '/v1/private/datasets', { name: `bench-${Date.now()}` }, [201]);
    const rows = Array.from({ length: options.rows }, (_, i) => ({
      inputs: { question: `Question number ${i}?` },
      expected_output: `Question number ${i}?`,
    }));
    const version = await api('POST', `/v1/private/datasets/${dataset.id}/versions`, { rows }, [201]);
    await settle(procs);
    const created = await api(
      'POST',
      '/v1/private/experiment_runs',
      {
        dataset: dataset.id,
        dataset_version: version.version,
        baseline: 'deployed',
        candidates: [
          { name: 'deployed', deployment: DEPLOYMENT, variant: 'default' },
          { name: 'inline', inline: { model: MODEL, messages: [{ role: 'user', content: 'Echo: {{ question }}' }] } },
        ],
        evaluators: [
          { type: 'contains' },
          { type: 'similarity', threshold: 0.5 },
          { type: 'regex', value: 'Question number [0-9]+' },
          { type: 'max_latency_ms', value: 60_000 },
          { type: 'max_cost', value: 1 },
        ],
      },
      [201],
    );
    let run = created;
    const deadline = Date.now() + 30 * 60_000;
    while (!['completed', 'failed', 'cancelled'].includes(run.status)) {
      if (Date.now() > deadline) throw new Error(`experiment run ${run.id} still ${run.status} after 30 minutes`);
      await sleep(500);
      run = await api('GET', `/v1/private/experiment_runs/${created.id}`, undefined, [200]);
    }
    if (run.status !== 'completed') failures.push(`experiment run ended ${run.status}: ${JSON.stringify(run.error)}`);
    const seconds = (Date.parse(run.finished_at) - Date.parse(run.started_at ?? run.created_at)) / 1000;
    const stats = (values) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), count: sorted.length };
    };
    const latency = Object.fromEntries(names.map((leg) => [leg, stats(samples[leg])]));
    report = {
      machine: machine(),
      rounds: options.rounds,
      requests: options.requests,
      latency,
      added: Object.fromEntries(
        names
          .filter((leg) => leg !== 'deployed')
          .map((leg) => [leg, { p50: latency[leg].p50 - latency.deployed.p50, p95: latency[leg].p95 - latency.deployed.p95 }]),
      ),
      experiment: {
        rows: options.rows,
        cells: run.counts.cells,
        succeeded: run.counts.succeeded,
        errored: run.counts.errored,
        seconds,
        cellsPerSecond: run.counts.cells / seconds,
        summary: run.summary.map((s) => ({ candidate: s.candidate, pass_rate: s.pass_rate, p50: s.latency_ms.p50, p95: s.latency_ms.p95 })),
      },
      failures,
    };
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
  if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${markdown(report)}\n`);
  process.exit(failures.length ? 1 : 0);
}

function markdown(report) {
  const label = {
    deployed: 'deployed (the contract’s invoke)',
    label: '`label: staging`',
    version: '`version: 1`',
    split: 'split 90/10, a new `user` each request',
  };
  const lines = ['| invoke | p50 (ms) | p95 (ms) | p99 (ms) | added p50 (ms) | requests |', '| --- | ---: | ---: | ---: | ---: | ---: |'];
  for (const [leg, stats] of Object.entries(report.latency)) {
    const added = report.added[leg];
    lines.push(
      `| ${label[leg]} | ${fmt(stats.p50, 3)} | ${fmt(stats.p95, 3)} | ${fmt(stats.p99, 3)} | ${added ? fmt(added.p50, 3) : '—'} | ${stats.count} |`,
    );
  }
  const e = report.experiment;
  lines.push(
    '',
    `Experiment: ${e.rows} rows × 2 candidates = ${e.cells} cells (${e.succeeded} succeeded, ${e.errored} errored) in ${fmt(e.seconds, 1)} s: **${fmt(e.cellsPerSecond, 1)} cells/s** with five evaluators on.`,
    '',
    '| candidate | pass rate | p50 (ms) | p95 (ms) |',
    '| --- | ---: | ---: | ---: |',
    ...e.summary.map((s) => `| ${s.candidate} | ${fmt(s.pass_rate, 3)} | ${fmt(s.p50, 1)} | ${fmt(s.p95, 1)} |`),
  );
  if (report.failures.length) lines.push('', `Failures: ${report.failures.join('; ')}`);
  lines.push('', `Machine: ${JSON.stringify(report.machine)}`);
  return lines.join('\n');
}

main();
