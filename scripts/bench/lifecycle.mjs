#!/usr/bin/env node
// Run lifecycle: how fast a cancel stops a running run, and what an Idempotency-Key adds to an
// invoke (docs/benchmarks/lifecycle.md).
//
//   npm run build && npm run bench:lifecycle [-- --cancels N] [--invokes N] [--json] [--allow-others]
//
// The stack: the fake provider (a process), catalog, two invocation replicas and a gateway,
// against the running PostgreSQL, Redis and NATS; a workspace, a catalog with one fake model
// and a prompt deployment made with the CLI.
// 1. cancel: N sync prompt invokes (one at a time) whose provider call the fake holds for 60 s.
//    Once the fake has the call and the ledger has the run (found by its unique `user`), the
//    run is cancelled through the gateway. From the moment the cancel is sent: when its answer
//    came, when the waiting caller got its 409 run_cancelled, and when the provider saw its
//    request aborted (the fake's record). The aim (decisions D39): a running run stops within 2 s.
// 2. Idempotency-Key: N sequential prompt invokes (fake provider answering at once) of each leg,
//    interleaved: without a key, with a new key each (a claim and a kept answer), and repeats
//    of one key (replays): p50/p99.
// Markdown on stdout (JSON with --json), progress on stderr. Exits 1 when a run was not
// cancelled, an invoke failed, or a process did not start or exit cleanly.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  exitUnlessBuilt,
  fmt,
  httpRequest,
  log,
  machine,
  otherWaggleProcesses,
  restoreShippedCatalog,
  runNode,
  sleep,
  startPromptStack,
  stopAll,
  summarize,
  distEntries,
} from './bench-lib.mjs';

const ENTRIES = distEntries('migrate', 'cli', 'fake', 'catalog', 'invocation', 'gateway');
const MODEL = 'fake-lifecycle-bench';
const DEPLOYMENT = 'lifecycle-bench';
const STOP_AIM_MS = 2_000;
/** How often the bench looks for the held call and the ledger record (before the measured cancel). */
const POLL_MS = 10;

function parseArgs(argv) {
  const options = { cancels: 20, invokes: 300, json: false, allowOthers: false };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === '--json') options.json = true;
    else if (flag === '--allow-others') options.allowOthers = true;
    else if (flag === '--cancels' || flag === '--invokes') options[flag.slice(2)] = Number(argv[++i]);
    else throw new Error(`unknown option ${flag}`);
  }
  return options;
}

/** A POST on a keep-alive agent: status, body and the milliseconds it took. */
function post(port, path, headers, body, agent) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString(), ms: performance.now() - started, at: Date.now() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function until(what, check, timeoutMs = 10_000) {
  const started = performance.now();
  for (;;) {
    const found = await check();
    if (found) return found;
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(POLL_MS);
  }
}

async function cancelPhase({ gateway, fakePort, auth, count }) {
  const agent = new Agent({ keepAlive: true });
  const answered = [];
  const callerTold = [];
  const providerAborted = [];
  const failures = [];
  for (let i = 0; i < count; i += 1) {
    const user = `cancel-${randomUUID()}`;
    const body = JSON.stringify({ deployment: DEPLOYMENT, variant: 'default', inputs: { question: user }, user });
    const invoked = post(gateway, '/v1/prompt/invoke', auth, body, agent);
    const held = () =>
      httpRequest(fakePort, '/_fake/requests').then((r) =>
        JSON.parse(r.body.toString()).find((record) => JSON.stringify(record.body).includes(user)),
      );
    await until('the held provider call', held);
    const run = await until('the run in the ledger', async () => {
      const listed = await httpRequest(gateway, `/v1/private/requests?user=${user}`, { headers: auth });
      return listed.status === 200 ? JSON.parse(listed.body.toString()).requests[0] : undefined;
    });
    const sentAt = Date.now();
    const cancel = await post(gateway, `/v1/public/requests/${run.request_id}/cancel`, auth, '', agent);
    const caller = await invoked;
    const record = await until('the aborted provider call', async () => {
      const found = await held();
      return found?.aborted ? found : undefined;
    });
    const status = JSON.parse(cancel.body).run_status;
    const callerCode = JSON.parse(caller.body).error_code;
    if (cancel.status !== 200 || status !== 'cancelled' || caller.status !== 409 || callerCode !== 'run_cancelled') {
      failures.push(`run ${i}: cancel ${cancel.status} ${status}, caller ${caller.status} ${callerCode}`);
      continue;
    }
    answered.push(cancel.at - sentAt);
    callerTold.push(caller.at - sentAt);
    providerAborted.push(record.abortedAt - sentAt);
  }
  agent.destroy();
  return { answered: summarize(answered), callerTold: summarize(callerTold), providerAborted: summarize(providerAborted), failures };
}

/**
 * The three legs interleaved (no key, a new key, the replayed key, in turn), so drift in the
 * machine's state (JIT, the ledger's writer, the CPU's other work) falls on all three alike.
 */
async function invokePhase({ gateway, auth, count }) {
  const agent = new Agent({ keepAlive: true });
  const legs = { plain: [], keyed: [], replayed: [] };
  const failures = [];
  const body = (question) => JSON.stringify({ deployment: DEPLOYMENT, variant: 'default', inputs: { question } });
  const send = async (leg, headers, question) => {
    const result = await post(gateway, '/v1/prompt/invoke', { ...auth, ...headers }, body(question), agent);
    if (result.status !== 200) failures.push(`${leg}: HTTP ${result.status}: ${result.body.slice(0, 200)}`);
    else legs[leg].push(result.ms);
  };
  await send('replayed', { 'idempotency-key': 'bench-replayed' }, 'replayed');
  legs.replayed.length = 0;
  for (let i = 0; i < count; i += 1) {
    await send('plain', {}, `plain ${i}`);
    await send('keyed', { 'idempotency-key': `bench-${randomUUID()}` }, `keyed ${i}`);
    await send('replayed', { 'idempotency-key': 'bench-replayed' }, 'replayed');
  }
  agent.destroy();
  return { plain: summarize(legs.plain), keyed: summarize(legs.keyed), replayed: summarize(legs.replayed), failures };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  exitUnlessBuilt(ENTRIES);
  const others = otherWaggleProcesses();
  if (others.length > 0 && !options.allowOthers) {
    log(`other Waggle processes run (${others.map((p) => p.pid).join(', ')}); stop them or pass --allow-others`);
    process.exit(1);
  }
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/waggle';
  const env = { ...process.env, HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
  const tmp = mkdtempSync(join(tmpdir(), 'waggle-bench-lifecycle-'));
  const procs = [];
  const failures = [];
  const state = { catalogLoaded: false };
  try {
    runNode(ENTRIES.migrate, [], env, 'migrate');
    const { fakePort, gateway, auth } = await startPromptStack({
      apps: ['catalog', 'invocation', 'invocation', 'gateway'],
      env,
      tmp,
      model: MODEL,
      deployment: DEPLOYMENT,
      catalogVersion: '2099.9.5',
      workspace: 'bench-lifecycle',
      procs,
      state,
    });
    const script = (behaviour) =>
      httpRequest(fakePort, `/_fake/models/${MODEL}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(behaviour),
      });

    log(`cancel: ${options.cancels} held runs`);
    await script({ latencyMs: 60_000 });
    const cancel = await cancelPhase({ gateway: gateway.port, fakePort, auth, count: options.cancels });
    await script({});
    log(`Idempotency-Key: ${options.invokes} invokes each without a key, with a new key, replayed`);
    await invokePhase({ gateway: gateway.port, auth, count: 50 }); // warm-up
    const { failures: invokeFailures, ...invoke } = await invokePhase({ gateway: gateway.port, auth, count: options.invokes });
    failures.push(...cancel.failures, ...invokeFailures);
    const report = { options, machine: machine(), cancel, invoke };
    process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : markdown(report));
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    if (state.catalogLoaded) restoreShippedCatalog(ENTRIES.cli, env, failures);
    await stopAll(procs, failures);
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const failure of failures) log(`FAILED: ${failure}`);
  process.exit(failures.length ? 1 : 0);
}

function markdown(r) {
  const ms = (s) => `${fmt(s.p50, 1)} / ${fmt(s.p99, 1)} / ${fmt(s.max, 1)}`;
  return [
    `Run lifecycle; ${r.options.cancels} cancels, ${r.options.invokes} invokes a leg; Node ${r.machine.node}, ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.date}.`,
    '',
    `| cancel of a running sync prompt run, from the cancel sent | p50 / p99 / max (ms) | aim |`,
    '| --- | ---: | ---: |',
    `| cancel answered (the holder stopped the run) | ${ms(r.cancel.answered)} | |`,
    `| waiting caller got 409 run_cancelled | ${ms(r.cancel.callerTold)} | |`,
    `| provider request aborted | ${ms(r.cancel.providerAborted)} | ≤ ${STOP_AIM_MS} |`,
    '',
    '| prompt invoke, sequential, fake provider at once | p50 / p99 / max (ms) |',
    '| --- | ---: |',
    `| no Idempotency-Key | ${ms(r.invoke.plain)} |`,
    `| a new Idempotency-Key each (claim + kept answer) | ${ms(r.invoke.keyed)} |`,
    `| the same key again (replay) | ${ms(r.invoke.replayed)} |`,
    '',
    `Added by a new key at p50: ${fmt(r.invoke.keyed.p50 - r.invoke.plain.p50, 2)} ms.`,
    '',
  ].join('\n');
}

await main();
