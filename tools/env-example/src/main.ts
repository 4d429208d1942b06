import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderEnvExample } from './render-env-example';

// Runs from dist/tools/env-example/src; the repository root is four levels up.
const distRoot = join(__dirname, '../../..');
const target = join(distRoot, '..', '.env.example');
const rendered = renderEnvExample(join(distRoot, 'apps'));

if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== rendered) {
    process.stderr.write('.env.example is out of date: run `npm run env:example`\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, rendered);
  process.stdout.write(`wrote ${target}\n`);
}
