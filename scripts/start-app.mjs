// Runs one app alone from the build: `npm run start:app -- catalog` (PORT etc. from the
// environment). Builds first when dist/ is missing.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const APPS = ['gateway', 'invocation', 'agent', 'knowledge-base', 'asset', 'catalog', 'callback-dispatcher'];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const app = process.argv[2];
if (!APPS.includes(app)) {
  console.error(`usage: npm run start:app -- <${APPS.join('|')}>`);
  process.exit(64);
}
const entry = join(root, 'dist/apps', app, 'src/main.js');
if (!existsSync(entry)) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
const child = spawn(process.execPath, [entry], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
