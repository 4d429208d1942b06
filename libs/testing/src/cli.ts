import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './app-process';

const run = promisify(execFile);

/** Runs the built operator CLI (`dist/tools/cli/src/main.js`) and parses its `--json` output. */
export async function cliJson<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'dist/tools/cli/src/main.js'), ...args, '--json'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as T;
}
