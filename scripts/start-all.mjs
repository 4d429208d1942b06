// `npm run up`'s last step: runs the seven built apps (N replicas each with --replicas N)
// under a supervisor that restarts an app that exits, fronts N gateways with a
// round-robin proxy on PORT, waits until every replica is ready, creates the demo
// workspace, and stops everything gracefully on Ctrl-C. Logs and the state file
// (up.json) live in WAGGLE_STATE_DIR (.waggle); WAGGLE_LOGS=stdout also streams the logs here.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GatewayProxy, unavailableBodyFromCatalog } from './up/gateway-proxy.mjs';
import { APPS, EX_CONFIG, parseUpOptions, planReplicas, UsageError, USAGE } from './up/plan.mjs';
import { Supervisor } from './up/supervisor.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

let options;
let plan;
try {
  options = parseUpOptions(process.argv.slice(2), process.env, { root });
  plan = planReplicas(options);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`up: ${error.message}\n${USAGE}`);
  process.exit(64); // EX_USAGE
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const missing = APPS.filter((app) => !existsSync(join(root, 'dist/apps', app, 'src/main.js')));
if (missing.length > 0) {
  console.error(`up: no build of ${missing.join(', ')}: run \`npm run build\` first`);
  process.exit(1);
}
const retired = Object.keys(process.env).filter((name) => /^WAGGLE_[A-Z_]+_PORT$/.test(name) && name !== 'WAGGLE_PORT_BASE');
if (retired.length > 0)
  console.error(
    `up: ignoring ${retired.join(', ')}: every app's port now follows WAGGLE_PORT_BASE (see docs/operations/running-locally.md)`,
  );

const { replicas, publicPort, stateDir } = options;
const url = `http://127.0.0.1:${publicPort}`;
const gateways = plan.filter((entry) => entry.behindProxy);
const graceMs = Number(process.env.SHUTDOWN_GRACE_MS ?? 10_000) || 10_000;

let proxy = null;
if (gateways.length > 0) {
  proxy = new GatewayProxy({
    upstreams: gateways,
    unavailableBody: unavailableBodyFromCatalog(root),
    log: (line) => console.error(`up: proxy: ${line}`),
  });
  try {
    await proxy.listen(publicPort, process.env.HOST ?? '0.0.0.0');
  } catch (error) {
    console.error(`up: the proxy cannot listen on port ${publicPort}: ${error.message}`);
    process.exit(1);
  }
}

let shuttingDown = false;
const supervisor = new Supervisor({
  root,
  plan,
  env: process.env,
  stateDir,
  logsToStdout: options.logsToStdout,
  url,
  proxied: proxy !== null,
  onStart: (replica) => replica.behindProxy && proxy.upstreamStarted(replica.name),
  onExit: (replica) => replica.behindProxy && proxy.upstreamExited(replica.name),
  onRefused: () => {
    console.error('up: fix that setting and run again; stopping the stack.');
    void shutdown(EX_CONFIG);
  },
});

async function shutdown(exitCode) {
  if (shuttingDown) return;
  shuttingDown = true;
  console.log('up: stopping all apps (in-flight work gets its grace period)…');
  supervisor.setStatus('stopping');
  // The proxy stays open while the gateways drain, so their answers in flight still arrive.
  await supervisor.stop({ forceAfterMs: graceMs + 10_000 });
  await proxy?.close();
  supervisor.setStatus('stopped');
  console.log('up: stopped');
  process.exit(exitCode);
}

/** 200 from each replica's own /health/ready, and every service up in the gateway's view. */
async function waitUntilReady(deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  let last = '';
  const ready = async (port) => {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
      await response.body?.cancel();
      return response.status === 200;
    } catch {
      return false; // not listening yet
    }
  };
  while (Date.now() < deadline && !shuttingDown) {
    // invocation#1,2 rather than invocation#1, invocation#2: the line stays short with replicas.
    const notReady = new Map();
    for (const replica of supervisor.replicas) {
      if (!(await ready(replica.port))) notReady.set(replica.app, [...(notReady.get(replica.app) ?? []), replica.replica]);
    }
    const waiting = [...notReady].map(([app, numbers]) => `${app}#${numbers.join(',')}`);
    try {
      const body = await (await fetch(`${url}/health/ready`)).json();
      const down = Object.entries(body.services ?? {}).filter(([, service]) => service.status !== 'up');
      if (body.status !== 'ok' || !body.services) waiting.push('gateway dependencies');
      waiting.push(...down.map(([name]) => `${name} (as the gateway sees it)`));
    } catch {
      waiting.push(proxy ? 'the proxy' : 'the gateway');
    }
    if (waiting.length === 0) return true;
    const line = `waiting for: ${waiting.join(', ')}`;
    if (line !== last) console.log(`up: ${line}`);
    last = line;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

const runCli = promisify(execFile);
const cli = async (...args) =>
  JSON.parse((await runCli(process.execPath, [join(root, 'dist/tools/cli/src/main.js'), ...args, '--json'], { cwd: root })).stdout);

/**
 * The demo workspace is created once; its key (shown only at creation) is kept in the
 * state dir's demo-workspace.json, which is local data and never committed. The CLI runs
 * asynchronously: the proxy shares this process and must keep answering meanwhile.
 */
async function ensureDemoWorkspace() {
  const file = join(stateDir, 'demo-workspace.json');
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, 'utf8'));
    if ((await cli('workspace', 'list')).some((workspace) => workspace.id === demo.workspace_id)) return { demo, file };
  }
  const demo = await cli('workspace', 'create', '--name', 'Demo');
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return { demo, file };
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void shutdown(0));

const started = Date.now();
const shape = replicas === 1 ? 'one replica each' : `${replicas} replicas each, gateways behind a round-robin proxy on ${publicPort}`;
console.log(`up: starting ${APPS.join(', ')} (${shape}); logs in ${join(stateDir, 'logs')}, state in ${join(stateDir, 'up.json')}`);
supervisor.start();
// Replicas share two cores while they start: allow more time for more of them.
const readyWithinMs = 60_000 + 30_000 * (replicas - 1);
if (await waitUntilReady(readyWithinMs)) {
  supervisor.setStatus('ready');
  console.log(`up: all ${plan.length} processes ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`up: gateway  ${url}   (health: /health/ready, error codes: /v1/error_codes)`);
  if (proxy) console.log(`up: proxy    round robin over ${gateways.map(({ name, port }) => `${name} :${port}`).join(', ')}`);
  try {
    const { demo, file } = await ensureDemoWorkspace();
    console.log(`up: demo workspace ${demo.workspace_id}`);
    console.log(`up: demo API key   ${demo.api_key}   (kept in ${file})`);
    console.log(`up: try: curl -H "Authorization: Bearer ${demo.api_key}" ${url}/v1/models`);
  } catch (error) {
    console.error(`up: could not create the demo workspace: ${error.message}`);
  }
  console.log('up: an app that exits is restarted; press Ctrl-C to stop');
} else if (!shuttingDown) {
  console.error(
    `up: not every process became ready within ${readyWithinMs / 1000} s; see ${join(stateDir, 'logs')} and ${join(stateDir, 'up.json')}`,
  );
  void shutdown(1);
}
