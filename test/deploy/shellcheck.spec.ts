/**
 * shellcheck (installed by scripts/install-tools.sh) over every shell script of the
 * repository: warnings and errors fail; info and style notes (e.g. functions called
 * indirectly, `start_$service`) do not.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot, toolPath } from './support/chart';

const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'tmp', 'coverage', '.nx', '.waggle']);

/** `*.sh` files, and files without an extension whose first line runs bash or sh (e.g. .ci/run). */
function shellScripts(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : shellScripts(file);
    if (!entry.isFile()) return [];
    if (entry.name.endsWith('.sh')) return [file];
    if (path.extname(entry.name) !== '') return [];
    const firstLine = fs.readFileSync(file, 'utf8').split('\n', 1)[0];
    return /^#!\s*(\/usr\/bin\/env\s+)?(\/bin\/)?(ba)?sh\b/.test(firstLine) ? [file] : [];
  });
}

function shellcheck(files: string[]) {
  return spawnSync(toolPath('shellcheck'), ['--severity=warning', '--format=gcc', ...files], { cwd: repoRoot, encoding: 'utf8' });
}

describe('shellcheck', () => {
  const scripts = shellScripts(repoRoot)
    .map((file) => path.relative(repoRoot, file))
    .sort();

  it('finds the scripts', () => {
    expect(scripts).toEqual(
      expect.arrayContaining(['.ci/run', 'deploy/docker/entrypoint.sh', 'scripts/install-tools.sh', 'scripts/test.sh']),
    );
  });

  it('passes every shell script', () => {
    const result = shellcheck(scripts);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([]);
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('fails a script with a warning', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waggle-shellcheck-'));
    try {
      const bad = path.join(dir, 'bad.sh');
      fs.writeFileSync(bad, '#!/usr/bin/env bash\nfiles=$(ls)\nfor f in $files; do rm $f; done\ncd /nowhere\n');
      const result = shellcheck([bad]);
      expect(result.status).toBe(1);
      expect(result.stdout).toMatch(/warning: Use 'cd \.\.\. \|\| exit'.*\[SC2164\]/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
