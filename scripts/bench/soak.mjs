#!/usr/bin/env node
// Soak: mixed traffic at about half of measured capacity for a long time (docs/benchmarks/soak.md;
// the method in docs/reliability.md, "The soak benchmark").
//
//   npm run build && npm run bench:soak [-- --minutes 30] [--window-minutes 5] [--replicas 1]
//        [--capacity-seconds 60] [--rate N] [--database-url URL] [--json]
//
// It runs the whole stack the way `npm run up` does (the supervisor, scripts/start-all.mjs, with
// --replicas), on free loopback ports, against its own PostgreSQL database (default waggle_bench,
// migrated first), and a Redis (AOF, noeviction) and a NATS (JetStream on disk) it starts itself
// on free ports (so test runs on the machine's shared servers neither see nor disturb it), with
// the fake model provider (no latency) and a callback receiver in this script.
// The data stays the same size, so a window measures the same work as the one before: documents
// go into a knowledge base of at most KNOWLEDGE_BASE_ITEMS items; a full one is replaced by a new
// one and deleted (its cleanup runs in the background, as a user's delete does).
// The mix, one operation at a time chosen by weight: prompt invoke (sync 30, streamed 10), agent
// invoke 15, async workflow invoke 10 and prompt webhook trigger 10 (both with callbacks), knowledge
// base search 15, an upload added to the knowledge base (ingestion) 5, request lookup 5.
// 1. Capacity: the mix in a closed loop, 16 operations in flight, for --capacity-seconds: operations
//    per second. (--rate skips it.)
// 2. Soak: the mix in an open loop at half that rate (or --rate) for --minutes. Per window of
//    --window-minutes: operations and errors (anything but the expected 2xx, or no answer within
//    60 s), p50/p99 per operation, the RSS of every process (each replica, the supervisor, the fake
//    provider), BullMQ depths (waiting, active, delayed, failed per queue), PostgreSQL connections
//    to the database. RSS is sampled every RSS_SAMPLE_MS and a window reports each process's median
//    (a single reading lands anywhere in a garbage collector's cycle). The first window is the
//    warm-up; RSS growth is the last window's median against the second's (the first after warm-up).
// Markdown on stdout (JSON with --json), progress on stderr. Exits 1 when an operation failed, a
// callback is missing at the end, or a process did not start.
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  benchCatalogYaml,
  benchPromptYaml,
  exitUnlessBuilt,
  fmt,
  freePort,
  log,
  machine,
  runNode,
  sleep,
  startProcess,
  stopProcess,
  summarize,
  distEntries,
} from './bench-lib.mjs';

const ENTRIES = distEntries('migrate', 'cli', 'fake', 'gateway');
const SUPERVISOR = 'scripts/start-all.mjs';
const MODEL = 'fake-soak-chat';
const QUEUES = ['callbacks', 'prompt-runs', 'agent-runs', 'workflow-runs', 'knowledge-base-ingest', 'knowledge-base-cleanup'];
const OPERATION_TIMEOUT_MS = 60_000;
const CAPACITY_CONCURRENCY = 16;
/** An open loop that falls this far behind is overloaded, not soaking: those operations count as errors. */
const MAX_IN_FLIGHT = 256;
/** Items a knowledge base takes before the soak replaces it (so searches cost the same all along). */
const KNOWLEDGE_BASE_ITEMS = 100;
const RSS_SAMPLE_MS = 10_000;
const WEIGHTS = {
  prompt: 30,
  'prompt-stream': 10,
  agent: 15,
  'workflow-async': 10,
  'prompt-trigger': 10,
  search: 15,
  ingest: 5,
  lookup: 5,
};

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    'window-minutes': { type: 'string', default: '5' },
    replicas: { type: 'string', default: '1' },
    'capacity-seconds': { type: 'string', default: '60' },
    rate: { type: 'string' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/waggle_bench' },
    json: { type: 'boolean', default: false },
  },
});
const options = {
  minutes: Number(args.minutes),
  windowMinutes: Number(args['window-minutes']),
  replicas: Number(args.replicas),
  capacitySeconds: Number(args['capacity-seconds']),
  rate: args.rate === undefined ? undefined : Number(args.rate),
  databaseUrl: args['database-url'],
};
for (const [name, value] of Object.entries(options)) {
  if (value !== undefined && typeof value === 'number' && !(value > 0)) {
    log(`--${name} must be a positive number`);
    process.exit(2);
  }
}
exitUnlessBuilt({ ...ENTRIES, ownInfrastructure: 'dist/libs/testing/src/own-infrastructure.js' });

const tmp = mkdtempSync(join(tmpdir(), 'waggle-soak-'));
// The machine's redis-server and nats-server binaries, on free ports, data under tmp.
const { startOwnNats, startOwnRedis } = createRequire(import.meta.url)('../../dist/libs/testing/src/own-infrastructure.js');
const ownRedis = await startOwnRedis(await freePort(), join(tmp, 'redis'));
const ownNats = await startOwnNats(await freePort(), join(tmp, 'nats'));
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  DATABASE_URL: options.databaseUrl,
  REDIS_URL: ownRedis.url,
  NATS_URL: ownNats.url,
  CALLBACK_URL_ALLOWLIST: '127.0.0.1',
};
const queueConnection = new Redis(ownRedis.url, { maxRetriesPerRequest: null });
const queues = QUEUES.map((name) => new Queue(name, { connection: queueConnection }));
const procs = [];
const callbacks = new Set();
let receiver;

/** The callback receiver: answers 200 at once and remembers each webhook-id. */
function startReceiver() {
  return new Promise((resolve) => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        callbacks.add(String(request.headers['webhook-id']));
        response.writeHead(200).end();
      });
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

let cleaning;
/** Stops everything this script started, once (a signal may come while it runs). */
function cleanup() {
  cleaning ??= stopEverything();
  return cleaning;
}

async function stopEverything() {
  for (const proc of [...procs].reverse()) await stopProcess(proc);
  await Promise.all(queues.map((queue) => queue.close()));
  queueConnection.disconnect();
  await Promise.allSettled([ownRedis.server.stop(), ownNats.server.stop()]);
  receiver?.close();
  rmSync(tmp, { recursive: true, force: true });
}

/** Resident memory of a process in MiB, from /proc (null once it is gone). */
function rssMiB(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('VmRSS:'));
    return Number(line.split(/\s+/)[1]) / 1024;
  } catch {
    return null;
  }
}

function databaseConnections() {
  const database = new URL(options.databaseUrl).pathname.slice(1);
  const result = spawnSync(
    'psql',
    ['-X', '-qAt', options.databaseUrl, '-c', `SELECT count(*) FROM pg_stat_activity WHERE datname = '${database}'`],
    { encoding: 'utf8' },
  );
  return Number(result.stdout.trim());
}

async function main() {
  log(`machine: ${JSON.stringify(machine())}`);
  runNode(ENTRIES.migrate, [], env, 'migrations');
  receiver = await startReceiver();
  const callbackUrl = `http://127.0.0.1:${receiver.address().port}/soak`;
  const fakePort = await freePort();
  procs.push(
    startProcess('fake-provider', ENTRIES.fake, {
      ...env,
      FAKE_PROVIDER_PORT: String(fakePort),
      FAKE_PROVIDER_HOST: '127.0.0.1',
      FAKE_PROVIDER_LATENCY_MS: '0',
    }),
  );
  const publicPort = await freePort();
  const stateDir = join(tmp, 'up');
  const supervisor = startProcess(
    'supervisor',
    SUPERVISOR,
    {
      ...env,
      PORT: String(publicPort),
      WAGGLE_PORT_BASE: String(10_000 + Math.floor(Math.random() * 7_000)), // below freePort's range and the ephemeral one
      WAGGLE_STATE_DIR: stateDir,
      FAKE_BASE_URL: `http://127.0.0.1:${fakePort}/v1`,
      FAKE_API_KEY: 'soak',
    },
    [],
    ['--replicas', String(options.replicas)],
  );
  procs.push(supervisor);
  const state = () => JSON.parse(readFileSync(join(stateDir, 'up.json'), 'utf8'));
  const base = `http://127.0.0.1:${publicPort}`;
  for (let waited = 0; ; waited += 250) {
    if (supervisor.exit) throw new Error(`the supervisor exited:\n${supervisor.output()}`);
    const ready = await fetch(`${base}/health/ready`)
      .then((response) => response.json())
      .catch(() => undefined);
    if (ready?.services && Object.values(ready.services).every((service) => service.status === 'up')) break;
    if (waited > 120_000) throw new Error(`the stack did not become ready:\n${supervisor.output()}`);
    await sleep(250);
  }
  log(`stack ready: ${options.replicas} replica(s) of every app behind ${base}`);

  const catalogFile = join(tmp, 'models.yaml');
  writeFileSync(catalogFile, benchCatalogYaml('2099.9.9', MODEL));
  runNode(ENTRIES.cli, ['catalog', 'load', '--file', catalogFile, '--force', '--json'], env, 'catalog load');
  const workspace = JSON.parse(
    runNode(ENTRIES.cli, ['workspace', 'create', '--name', 'bench-soak', '--plan', 'enterprise', '--json'], env, 'workspace create'),
  );
  writeFileSync(join(tmp, 'prompts.yaml'), benchPromptYaml('soak', MODEL));
  const [deployment] = JSON.parse(
    runNode(ENTRIES.cli, ['apply', '-f', join(tmp, 'prompts.yaml'), '--workspace', workspace.workspace_id, '--json'], env, 'apply'),
  );
  const headers = { authorization: `Bearer ${workspace.api_key}`, 'content-type': 'application/json' };
  const post = async (path, body) => {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (response.status !== 200) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const { agent } = await post(`/v1/public/workspaces/${workspace.workspace_id}/agents`, {
    agent: { name: 'soak', llm_model: MODEL, model_type: 'llm' },
  });
  const [workflow] = (
    await post('/v1/private/workflows/apply', {
      workflows: [
        {
          deployment: 'soak-flow',
          variants: [
            {
              name: 'default',
              inputs: { topic: { type: 'text', required: true } },
              output: '{{ note.output }}',
              steps: [{ id: 'note', type: 'template', text: 'About {{ topic }}' }],
            },
          ],
        },
      ],
    })
  ).workflows;
  const knowledgeBases = `/v1/public/workspaces/${workspace.workspace_id}/knowledge_bases`;
  /** A knowledge base in use: searched and filled until full, then retired and deleted once nothing uses it. */
  const newKnowledgeBase = async () => ({
    id: (await post(knowledgeBases, { knowledge_base: { name: 'soak' } })).knowledge_base.id,
    items: 0,
    using: 0,
    retired: false,
  });
  let knowledgeBase = await newKnowledgeBase();
  let replacing;
  /** Runs `use` against the current knowledge base; the last use of a retired one deletes it. */
  const withKnowledgeBase = async (use) => {
    const held = knowledgeBase;
    held.using += 1;
    try {
      return await use(held);
    } finally {
      held.using -= 1;
      if (held.retired && held.using === 0)
        await call(`${knowledgeBases}/${held.id}`, { method: 'DELETE', headers }, (status) => status === 200 || status === 202);
    }
  };
  const replaceWhenFull = async () => {
    if (knowledgeBase.items < KNOWLEDGE_BASE_ITEMS || replacing) return replacing;
    replacing = (async () => {
      const full = knowledgeBase;
      knowledgeBase = await newKnowledgeBase();
      full.retired = true;
      if (full.using === 0)
        await call(`${knowledgeBases}/${full.id}`, { method: 'DELETE', headers }, (status) => status === 200 || status === 202);
    })().finally(() => (replacing = undefined));
    return replacing;
  };

  const accepted = [];
  const lookups = [];
  let documents = 0;
  const call = async (path, init, ok) => {
    const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(OPERATION_TIMEOUT_MS) });
    const text = await response.text();
    if (!ok(response.status, text)) throw new Error(`${response.status} ${text.slice(0, 200)}`);
    return text;
  };
  const invoke = (extra = {}) => ({
    method: 'POST',
    headers,
    body: JSON.stringify({ deployment: 'soak', variant: 'default', inputs: { question: 'soak' }, ...extra }),
  });
  const operations = {
    prompt: async () => lookups.push(JSON.parse(await call('/v1/prompt/invoke', invoke(), (status) => status === 200)).request_id),
    'prompt-stream': () =>
      call(
        '/v1/prompt/invoke',
        invoke({ streaming: true }),
        (status, text) => status === 200 && text.trimEnd().endsWith('data: [DONE]') && !text.includes('"type":"error"'),
      ),
    agent: () =>
      call(
        '/v1/agent/invoke',
        { method: 'POST', headers, body: JSON.stringify({ agent: agent.id, message: 'soak' }) },
        (status) => status === 200,
      ),
    'workflow-async': async () =>
      accepted.push(
        JSON.parse(
          await call(
            '/v1/workflow/invoke',
            {
              method: 'POST',
              headers,
              body: JSON.stringify({
                deployment: workflow.deployment,
                variant: 'default',
                inputs: { topic: 'soak' },
                async: { enabled: true, callback_url: callbackUrl },
              }),
            },
            (status) => status === 200 || status === 202,
          ),
        ).request_id,
      ),
    'prompt-trigger': async () =>
      accepted.push(
        JSON.parse(
          await call(
            `/v1/prompt/webhooks/${deployment.prompt_endpoint_id}/variants/${deployment.variants[0].variant_id}`,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-service-webhook-secret': deployment.webhook_secret },
              body: JSON.stringify({ inputs: { question: 'soak' }, async: { callback_url: callbackUrl } }),
            },
            (status) => status === 202,
          ),
        ).request_id,
      ),
    search: () =>
      withKnowledgeBase((kb) =>
        call(
          `${knowledgeBases}/${kb.id}/search`,
          {
            method: 'POST',
            headers,
            body: JSON.stringify({ search_query: 'soak', search_type: 'hybrid', search_chunk_limit: 3, search_score_threshold: 0 }),
          },
          (status) => status === 200,
        ),
      ),
    ingest: async () => {
      documents += 1;
      const form = new FormData();
      form.append(
        'file',
        new Blob([`Soak document ${documents}. ${'Long runs show what short ones hide. '.repeat(60)}`]),
        `soak-${documents}.txt`,
      );
      const uploaded = await call(
        `/v1/public/workspaces/${workspace.workspace_id}/assets`,
        { method: 'POST', headers: { authorization: headers.authorization }, body: form },
        (status) => status === 200,
      );
      await withKnowledgeBase(async (kb) => {
        kb.items += 1;
        await call(
          `/v1/private/knowledge_bases/${kb.id}/items`,
          { method: 'POST', headers, body: JSON.stringify({ asset_id: JSON.parse(uploaded).asset.id }) },
          (status) => status === 200,
        );
      });
      await replaceWhenFull();
    },
    lookup: () =>
      lookups.length === 0
        ? operations.prompt()
        : call(`/v1/public/requests/${lookups[Math.floor(Math.random() * lookups.length)]}`, { headers }, (status) => status === 200),
  };
  const deck = Object.entries(WEIGHTS).flatMap(([kind, weight]) => Array(weight).fill(kind));
  let window;
  const newWindow = (index) => ({
    index,
    started: Date.now(),
    latencies: Object.fromEntries(Object.keys(WEIGHTS).map((kind) => [kind, []])),
    errors: [],
    operations: 0,
  });
  let inFlight = 0;
  const runOne = async () => {
    const kind = deck[Math.floor(Math.random() * deck.length)];
    const into = window;
    const started = performance.now();
    inFlight += 1;
    try {
      await operations[kind]();
      into.latencies[kind].push(performance.now() - started);
    } catch (error) {
      into.errors.push(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      inFlight -= 1;
      into.operations += 1;
    }
  };

  let rate = options.rate;
  if (rate === undefined) {
    window = newWindow(-1);
    const until = Date.now() + options.capacitySeconds * 1000;
    await Promise.all(
      Array.from({ length: CAPACITY_CONCURRENCY }, async () => {
        while (Date.now() < until) await runOne();
      }),
    );
    const capacity = window.operations / options.capacitySeconds;
    if (window.errors.length > 0) log(`capacity run: ${window.errors.length} errors, e.g. ${window.errors[0]}`);
    rate = capacity / 2;
    log(`capacity: ${fmt(capacity, 1)} operations/s with ${CAPACITY_CONCURRENCY} in flight; soaking at ${fmt(rate, 1)}/s`);
  }

  const windows = [];
  const sample = () => {
    const { apps } = state();
    return Object.fromEntries([
      ...apps.map((app) => [app.name, rssMiB(app.pid)]),
      ['supervisor', rssMiB(supervisor.pid)],
      ['fake-provider', rssMiB(procs[0].pid)],
    ]);
  };
  /** The window's RSS readings, process by process. */
  let readings = [];
  const sampler = setInterval(() => readings.push(sample()), RSS_SAMPLE_MS);
  const medianRss = () => {
    const taken = readings.length > 0 ? readings : [sample()];
    readings = [];
    return Object.fromEntries(
      Object.keys(taken.at(-1)).map((name) => {
        const values = taken
          .map((reading) => reading[name])
          .filter((value) => value !== null)
          .sort((a, b) => a - b);
        return [name, values.length > 0 ? values[Math.floor(values.length / 2)] : null];
      }),
    );
  };
  const windowMs = options.windowMinutes * 60_000;
  const endAt = Date.now() + options.minutes * 60_000;
  const pending = new Set();
  window = newWindow(0);
  let next = Date.now();
  while (Date.now() < endAt) {
    // Open loop: operations start on schedule whatever the ones before are doing.
    next += 1000 / rate;
    const wait = next - Date.now();
    if (wait > 0) await sleep(wait);
    if (inFlight >= MAX_IN_FLIGHT) window.errors.push('overloaded: too many operations in flight');
    else {
      const operation = runOne();
      pending.add(operation);
      void operation.finally(() => pending.delete(operation));
    }
    if (Date.now() - window.started >= windowMs) {
      windows.push(await closeWindow(window));
      window = newWindow(windows.length);
    }
  }
  await Promise.all(pending);
  if (window.operations > 0) windows.push(await closeWindow(window));

  async function closeWindow(closing) {
    const depths = Object.fromEntries(
      await Promise.all(queues.map(async (queue) => [queue.name, await queue.getJobCounts('waiting', 'active', 'delayed', 'failed')])),
    );
    const summary = {
      window: closing.index,
      minutes: (Date.now() - closing.started) / 60_000,
      operations: closing.operations,
      errors: closing.errors.length,
      firstErrors: closing.errors.slice(0, 3),
      latencyMs: Object.fromEntries(Object.entries(closing.latencies).map(([kind, values]) => [kind, summarize(values)])),
      rssMiB: medianRss(),
      queues: depths,
      postgresConnections: databaseConnections(),
    };
    log(
      `window ${summary.window}: ${summary.operations} operations, ${summary.errors} errors${summary.errors > 0 ? ` (first: ${summary.firstErrors[0]})` : ''}, PG connections ${summary.postgresConnections}`,
    );
    return summary;
  }

  // Every accepted async run's callback, before anything is judged.
  for (let waited = 0; [...accepted].some((id) => !callbacks.has(`msg_${id.replace(/^req_/, '')}`)) && waited < 120_000; waited += 500)
    await sleep(500);
  const missing = accepted.filter((id) => !callbacks.has(`msg_${id.replace(/^req_/, '')}`));
  clearInterval(sampler);
  const first = (windows[1] ?? windows[0])?.rssMiB ?? {};
  const last = windows.at(-1)?.rssMiB ?? {};
  const growth = Object.fromEntries(Object.keys(last).map((name) => [name, first[name] ? (last[name] - first[name]) / first[name] : null]));
  return { options: { ...options, rate }, windows, rssGrowth: growth, accepted: accepted.length, missingCallbacks: missing.length };
}

function markdown(report) {
  const lines = [
    `Soak: ${report.options.minutes} min at ${fmt(report.options.rate, 1)} operations/s, ${report.options.replicas} replica(s) of every app`,
    '',
  ];
  lines.push(
    '| window | operations | errors | ' +
      Object.keys(WEIGHTS)
        .map((kind) => `${kind} p50/p99 ms`)
        .join(' | ') +
      ' | PG conns | queues waiting/active/delayed/failed |',
  );
  lines.push('|' + ' --- |'.repeat(5 + Object.keys(WEIGHTS).length));
  for (const w of report.windows) {
    const depths = Object.entries(w.queues)
      .map(([name, c]) => `${name} ${c.waiting}/${c.active}/${c.delayed}/${c.failed}`)
      .join('; ');
    lines.push(
      `| ${w.window} | ${w.operations} | ${w.errors} | ${Object.keys(WEIGHTS)
        .map((kind) => `${fmt(w.latencyMs[kind].p50, 1)} / ${fmt(w.latencyMs[kind].p99, 1)}`)
        .join(' | ')} | ${w.postgresConnections} | ${depths} |`,
    );
  }
  lines.push(
    '',
    '| process | ' + report.windows.map((w) => `w${w.window} median RSS MiB`).join(' | ') + ' | growth since w1 |',
    '|' + ' --- |'.repeat(report.windows.length + 2),
  );
  for (const name of Object.keys(report.windows.at(-1)?.rssMiB ?? {})) {
    lines.push(
      `| ${name} | ${report.windows.map((w) => fmt(w.rssMiB[name], 1)).join(' | ')} | ${report.rssGrowth[name] === null ? 'n/a' : `${fmt(100 * report.rssGrowth[name], 1)} %`} |`,
    );
  }
  lines.push('', `accepted async runs ${report.accepted}, callbacks missing ${report.missingCallbacks}`);
  return lines.join('\n');
}

// An interrupted soak stops what it started (the supervisor stops the apps) before it exits.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}

let exitCode = 0;
try {
  const report = await main();
  process.stdout.write(`${args.json ? JSON.stringify(report, null, 2) : markdown(report)}\n`);
  if (report.windows.some((w) => w.errors > 0) || report.missingCallbacks > 0) exitCode = 1;
} catch (error) {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
