import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { renderAppEnvManifest } from './render-app-env-manifest';
import { renderConfigurationReference } from './render-configuration-reference';
import { renderEnvExample } from './render-env-example';

// Runs from dist/tools/env-example/src; the repository root is four levels up.
const distRoot = join(__dirname, '../../..');
const repoRoot = join(distRoot, '..');
const appsDir = join(distRoot, 'apps');

/** Every file generated from the apps' env classes. */
const generated = [
  { target: join(repoRoot, '.env.example'), render: () => renderEnvExample(appsDir) },
  { target: join(repoRoot, 'deploy/helm/waggle/files/app-env.json'), render: () => renderAppEnvManifest(appsDir) },
  { target: join(repoRoot, 'docs/reference/configuration.md'), render: () => renderConfigurationReference(appsDir) },
];

let stale = 0;
for (const { target, render } of generated) {
  const rendered = render();
  const name = relative(repoRoot, target);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // A missing file is out of date like a different one.
    }
    if (current !== rendered) {
      process.stderr.write(`${name} is out of date: run \`npm run env:example\`\n`);
      stale += 1;
    }
  } else {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, rendered);
    process.stdout.write(`wrote ${name}\n`);
  }
}
if (stale > 0) process.exit(1);
