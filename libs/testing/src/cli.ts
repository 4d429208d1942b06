import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** Applies a definition file (YAML: prompts, workflows, agents…) to a workspace with the CLI (`apply -f`), from a file of its own. */
export async function applyDefinitions<T = unknown>(definitions: string, workspaceId: string): Promise<T> {
  const file = join(mkdtempSync(join(tmpdir(), 'waggle-definitions-')), 'definitions.yaml');
  writeFileSync(file, definitions);
  return cliJson<T>(['apply', '-f', file, '--workspace', workspaceId]);
}
