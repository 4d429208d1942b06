// Compiles every app, library and tool with swc into dist/ (path aliases rewritten to
// relative requires) and copies the non-TypeScript files they load at run time; then
// bundles the web console (apps/console, a browser app) with Vite into dist/apps/console,
// which the gateway serves under /console.
// Type checking is separate: `npm run typecheck`.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sources = ['apps', 'libs', 'tools'];
const assetPattern = /\.(json|ya?ml|sql|txt|md)$/;
/** The SQL snapshots beside repositories are for review (npm run sql:snapshot), not for the apps. */
const reviewOnly = /\.repository\.sql$/;

rmSync(join(root, 'dist'), { recursive: true, force: true });
const started = Date.now();
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules/@swc/cli/bin/swc.js'),
    ...sources,
    '-d',
    'dist',
    '--config-file',
    '.swcrc',
    '--ignore',
    '**/*.spec.ts,apps/console/**',
    '--quiet',
  ],
  { cwd: root, stdio: 'inherit' },
);

let assets = 0;
function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (assetPattern.test(name) && !reviewOnly.test(name) && path.includes('/src/')) {
      cpSync(path, join(root, 'dist', relative(root, path)));
      assets += 1;
    }
  }
}
for (const source of sources) copyAssets(join(root, source));
console.log(`build: compiled ${sources.join(', ')} into dist/ and copied ${assets} asset(s) in ${Date.now() - started} ms`);

const bundled = Date.now();
execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'apps/console/vite.config.mts'], {
  cwd: root,
  stdio: 'inherit',
});
console.log(`build: bundled the console into dist/apps/console in ${Date.now() - bundled} ms`);
