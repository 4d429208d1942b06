import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppName } from '@waggle/contracts';
import { expectEventually } from './expect-eventually';

export const REPO_ROOT = join(__dirname, '../../..');

export interface AppProcess {
  app: AppName;
  port: number;
  baseUrl: string;
  /** The environment given on top of the test's, to start the app again the same way. */
  env: Record<string, string>;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends a signal and resolves with the exit code once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * Starts a built app (`dist/apps/<app>/src/main.js`) as its own process, exactly as
 * production does, with the given environment on top of the test's.
 */
export function spawnApp(app: AppName, port: number, env: Record<string, string> = {}): AppProcess {
  const entry = join(REPO_ROOT, 'dist/apps', app, 'src/main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [entry], {
    cwd: REPO_ROOT,
    // A gateway's metrics listener takes a free port unless the test names one: tests run gateways side by side.
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...(app === 'gateway' && { METRICS_PORT: '0' }), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    app,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    env,
    child,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Waits until the app answers `/health/live`; fails early with its output if it died. */
export async function waitUntilLive(app: AppProcess, timeoutMs = 30_000): Promise<void> {
  await expectEventually(
    async () => {
      if (app.child.exitCode !== null) throw new Error(`${app.app} exited with ${app.child.exitCode}:\n${app.output()}`);
      const response = await fetch(`${app.baseUrl}/health/live`);
      if (response.status !== 200) throw new Error(`${app.app} /health/live answered ${response.status}`);
    },
    { timeoutMs, intervalMs: 50 },
  );
}
