import { freePort, REPO_ROOT, spawnApp, startOwnNats, waitUntilLive, type AppProcess, type OwnServer } from '@waggle/testing';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built CLI as an operator runs it: a process of its own, stdin not a terminal. */
function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'dist/tools/cli/src/main.js'), ...args],
      { cwd: REPO_ROOT, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code) : 0, stdout, stderr }),
    );
  });
}

/**
 * The CLI on a terminal: `script` (util-linux) gives it a pseudo-terminal as stdin, fed `input`.
 * The exit code is the CLI's (`script -e`); stdout carries the terminal's echo and the prompt.
 */
function cliOnTerminal(args: string[], input: string, env: Record<string, string>): Promise<CliRun> {
  const command = [process.execPath, join(REPO_ROOT, 'dist/tools/cli/src/main.js'), ...args]
    .map((part) => `'${part.replace(/'/g, "'\\''")}'`)
    .join(' ');
  return new Promise((resolve) => {
    const child = execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { cwd: REPO_ROOT, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('the operator CLI as a process', () => {
  describe('with nothing listening at NATS_URL', () => {
    let closed: Record<string, string>;
    beforeAll(async () => {
      // A port just found free: nothing listens there, so any connection attempt is refused.
      closed = { NATS_URL: `nats://127.0.0.1:${await freePort()}` };
    });

    it('prints --help (with the exit codes) and --version without connecting', async () => {
      const help = await cli(['--help'], closed);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toContain('Usage: waggle [options] [command]');
      expect(help.stdout).toMatch(
        /Exit codes:\n {2}0 {3}done\n {2}1 {3}refused.*\n {2}64 {2}usage.*\n {2}69 {2}unavailable.*\n {2}78 {2}configuration/,
      );
      expect(await cli(['--version'], closed)).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
      const commandHelp = await cli(['workspace', 'delete', '--help'], closed);
      expect(commandHelp).toMatchObject({ code: 0, stderr: '' });
      expect(commandHelp.stdout).toContain('Usage: waggle workspace delete [options] <workspace-id>');
      expect(commandHelp.stdout).toContain('-y, --yes');
    });

    it('exits 64 on an unknown command or flag, a missing or invalid argument, an unreadable file', async () => {
      for (const args of [
        ['no-such-command'],
        ['workspace', 'list', '--bogus'],
        ['workspace', 'set-plan', randomUUID()],
        ['dead-letters', 'replay', 'nowhere', 'x'],
        ['delivery', 'list', 'x', '--limit', '-3'],
        ['workspace'],
      ]) {
        const run = await cli(args, closed);
        expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 64, stdout: '' });
        expect(run.stderr).toMatch(/^error: |^Usage: /);
      }
      expect(await cli(['apply', '-f', '/no/such/file.yaml', '--workspace', randomUUID()], closed)).toEqual({
        code: 64,
        stdout: '',
        stderr: 'error: cannot read /no/such/file.yaml: ENOENT\n',
      });
    });

    it('refuses a destructive command without --yes when stdin is not a terminal, before any connection (64)', async () => {
      const id = randomUUID();
      expect(await cli(['workspace', 'delete', id], closed)).toEqual({
        code: 64,
        stdout: '',
        stderr: `error: refusing to delete workspace ${id} without confirmation: stdin is not a terminal; pass --yes\n`,
      });
      expect((await cli(['key', 'revoke', 'wgl_abc', '--json'], closed)).code).toBe(64);
      expect((await cli(['webhook-secret', 'rotate', id, 'support', '--overlap', '0'], closed)).code).toBe(64);
    });

    it('asks on a terminal: only "yes" goes ahead; anything else or end of input cancels with exit 1', async () => {
      const id = randomUUID();
      const declined = await cliOnTerminal(['workspace', 'delete', id], 'no\n', closed);
      expect(declined.code).toBe(1);
      expect(declined.stdout).toContain(`delete workspace ${id}: this cannot be undone. Type "yes" to go ahead:`);
      expect(declined.stdout).toContain('cancelled: nothing was changed');
      expect((await cliOnTerminal(['key', 'revoke', 'wgl_abc'], '\u0004', closed)).code).toBe(1);
      // "yes" goes on to the command, which finds NATS unreachable.
      const accepted = await cliOnTerminal(['workspace', 'delete', id], 'yes\n', closed);
      expect(accepted.code).toBe(69);
      expect(accepted.stdout).toContain(`error: NATS is not reachable at ${closed.NATS_URL}`);
    });

    it('exits 69 when a command needs NATS and NATS is not reachable, in one line', async () => {
      expect(await cli(['plan', 'list'], closed)).toEqual({
        code: 69,
        stdout: '',
        stderr: `error: NATS is not reachable at ${closed.NATS_URL} (CONNECTION_REFUSED)\n`,
      });
      // With --yes the destructive command goes on, to the same unreachable NATS.
      expect((await cli(['workspace', 'delete', randomUUID(), '--yes'], closed)).code).toBe(69);
    });

    it('exits 78 on a bad setting, in one line naming the variable but not its value', async () => {
      const run = await cli(['plan', 'list'], { NATS_URL: 'http://secret-host:4222' });
      expect(run).toEqual({
        code: 78,
        stdout: '',
        stderr: 'error: invalid configuration: NATS_URL: NATS_URL must be one or more nats:// URLs separated by commas\n',
      });
      // Help needs no valid setting either.
      expect((await cli(['--help'], { NATS_URL: 'http://secret-host:4222' })).code).toBe(0);
    });
  });

  describe('with NATS up but no service answering', () => {
    let nats: { server: OwnServer; url: string };
    beforeAll(async () => {
      nats = await startOwnNats(await freePort(), mkdtempSync(join(tmpdir(), 'waggle-cli-nats-')));
    });
    afterAll(async () => {
      await nats.server.stop();
    });

    it('exits 69 (no responders), naming the pattern', async () => {
      const run = await cli(['plan', 'list'], { NATS_URL: nats.url });
      expect(run).toMatchObject({ code: 69, stdout: '' });
      expect(run.stderr).toMatch(/^error: no answer: .*\(upstream_request_failed, catalog\.plans\.list\)\n$/);
    });
  });

  describe('against the running catalog service', () => {
    const apps: AppProcess[] = [];
    beforeAll(async () => {
      apps.push(spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' }));
      await Promise.all(apps.map((app) => waitUntilLive(app)));
    });
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.stop()));
    });

    it('exits 1 when the service refuses (not found), with the error body on stderr under --json', async () => {
      const missing = randomUUID();
      const refused = await cli(['workspace', 'set-plan', missing, 'developer']);
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toMatch(/^error: .*\(not_found\)/);
      const asJson = await cli(['workspace', 'delete', missing, '--yes', '--json']);
      expect(asJson).toMatchObject({ code: 1, stdout: '' });
      expect(JSON.parse(asJson.stderr)).toMatchObject({ error_code: 'not_found' });
    });

    it('exits 0 and prints JSON when the command is done', async () => {
      const listed = await cli(['plan', 'list', '--json']);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect((JSON.parse(listed.stdout) as Array<{ key: string }>).map((plan) => plan.key)).toContain('developer');
    });
  });
});
