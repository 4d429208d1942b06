import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './app-process';

const run = promisify(execFile);

async function cliOutput(args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'dist/tools/cli/src/main.js'), ...args, '--json'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
  return stdout;
}

/** Runs the built operator CLI (`dist/tools/cli/src/main.js`) and parses its `--json` output. */
export async function cliJson<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  return JSON.parse(await cliOutput(args, env)) as T;
}

/** The `--json` output of a command that prints one JSON value a line (`request events`). */
export async function cliJsonLines<T>(args: string[], env: Record<string, string> = {}): Promise<T[]> {
  const lines = (await cliOutput(args, env)).split('\n').filter((line) => line !== '');
  return lines.map((line) => JSON.parse(line) as T);
}
