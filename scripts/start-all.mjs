// Starts all seven apps from dist/, waits until the gateway reports every service up,
// and stops them all gracefully on Ctrl-C. Each app's JSON log goes to .waggle/logs/;
// WAGGLE_LOGS=stdout streams them here instead, prefixed with the app's name.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const gatewayPort = Number(process.env.PORT ?? 3000);
// Services listen for /health/* only; WAGGLE_<APP>_PORT moves one (e.g. WAGGLE_CATALOG_PORT).
const APPS = [
  ['invocation', 3101],
  ['agent', 3102],
  ['knowledge-base', 3103],
  ['asset', 3104],
  ['catalog', 3105],
  ['callback-dispatcher', 3106],
  ['gateway', gatewayPort],
].map(([app, port]) => ({ app, port: Number(process.env[`WAGGLE_${app.toUpperCase().replace(/-/g, '_')}_PORT`] ?? port) }));

const logDir = join(root, '.waggle/logs');
mkdirSync(logDir, { recursive: true });
const toStdout = process.env.WAGGLE_LOGS === 'stdout';
// A laptop's callbacks go to a local receiver; production leaves the allowlist empty.
const developmentDefaults = { CALLBACK_URL_ALLOWLIST: '127.0.0.1,::1,localhost' };
const children = new Map();
let stopping = false;

function start({ app, port }) {
  const child = spawn(process.execPath, [join(root, 'dist/apps', app, 'src/main.js')], {
    cwd: root,
    env: { ...developmentDefaults, ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const file = createWriteStream(join(logDir, `${app}.log`), { flags: 'a' });
  for (const stream of [child.stdout, child.stderr]) {
    if (toStdout) stream.on('data', (chunk) => process.stdout.write(chunk.toString().replace(/^(?=.)/gm, `[${app}] `)));
    stream.pipe(file);
  }
  child.on('exit', (code, signal) => {
    children.delete(app);
    if (!stopping) {
      console.error(`up: ${app} exited (${signal ?? code}); see ${join('.waggle/logs', `${app}.log`)}. Stopping the rest.`);
      void stopAll(1);
    } else if (children.size === 0) process.exit(process.exitCode ?? 0);
  });
  children.set(app, child);
}

async function stopAll(exitCode) {
  if (stopping) return;
  stopping = true;
  process.exitCode = exitCode;
  console.log('up: stopping all apps (in-flight work gets its grace period)…');
  for (const child of children.values()) child.kill('SIGTERM');
  if (children.size === 0) process.exit(exitCode);
}

async function waitForServices(deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < deadline && !stopping) {
    try {
      const body = await (await fetch(`http://127.0.0.1:${gatewayPort}/health/ready`)).json();
      const down = Object.entries(body.services ?? {}).filter(([, s]) => s.status !== 'up').map(([name]) => name);
      if (body.status === 'ok' && body.services && down.length === 0) return true;
      const line = `waiting for: ${down.join(', ') || 'gateway dependencies'}`;
      if (line !== last) console.log(`up: ${line}`);
      last = line;
    } catch {
      // the gateway is not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

const cli = (...args) => JSON.parse(execFileSync(process.execPath, [join(root, 'dist/tools/cli/src/main.js'), ...args, '--json'], { cwd: root }).toString());

/**
 * The demo workspace is created once; its key (shown only at creation) is kept in
 * .waggle/demo-workspace.json, which is local data and never committed.
 */
function ensureDemoWorkspace() {
  const file = join(root, '.waggle/demo-workspace.json');
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, 'utf8'));
    if (cli('workspace', 'list').some((workspace) => workspace.id === demo.workspace_id)) return demo;
  }
  const demo = cli('workspace', 'create', '--name', 'Demo');
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

const started = Date.now();
console.log(`up: starting ${APPS.map(({ app }) => app).join(', ')}; logs in .waggle/logs/`);
for (const spec of APPS) start(spec);
if (await waitForServices(60_000)) {
  console.log(`up: all seven apps ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`up: gateway  http://127.0.0.1:${gatewayPort}   (health: /health/ready, error codes: /v1/error_codes)`);
  try {
    const demo = ensureDemoWorkspace();
    console.log(`up: demo workspace ${demo.workspace_id}`);
    console.log(`up: demo API key   ${demo.api_key}   (kept in .waggle/demo-workspace.json)`);
    console.log(`up: try: curl -H "Authorization: Bearer ${demo.api_key}" http://127.0.0.1:${gatewayPort}/v1/models`);
  } catch (error) {
    console.error(`up: could not create the demo workspace: ${error.message}`);
  }
  console.log('up: press Ctrl-C to stop');
} else if (!stopping) {
  console.error('up: not every service became ready within 60 s; see .waggle/logs/');
  void stopAll(1);
}
