import { FakeMcpServer } from '@waggle/fake-provider';
import { freePort, REPO_ROOT, spawnApp, startOwnNats, waitUntilLive, type AppProcess, type OwnServer } from '@waggle/testing';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
        /Exit codes:\n {2}0 {3}done\n {2}1 {3}refused.*\n {2}64 {2}usage.*\n {2}65 {2}experiment missed.*\n {2}69 {2}unavailable.*\n {2}78 {2}configuration/,
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

  /**
   * `mcp-server …` and an apply file's `mcp_servers:` against the agent service and a fake MCP
   * server that requires a bearer token: servers are applied before the file's prompts, and an
   * unchanged file applied again changes nothing and connects to nothing.
   */
  describe('mcp-server commands and apply mcp_servers, against the agent and invocation services', () => {
    const token = `cli-token-${randomBytes(12).toString('hex')}`;
    const fake = new FakeMcpServer({ requiredHeaders: { authorization: `Bearer ${token}` } });
    const apps: AppProcess[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'waggle-cli-mcp-'));
    const write = (name: string, text: string) => {
      const file = join(dir, name);
      writeFileSync(file, text);
      return file;
    };
    let workspace: string;

    beforeAll(async () => {
      await fake.start();
      apps.push(
        spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' }),
        spawnApp('invocation', await freePort(), { LOG_LEVEL: 'warn' }),
        spawnApp('agent', await freePort(), { LOG_LEVEL: 'warn', MCP_URL_ALLOWLIST: '127.0.0.1' }),
      );
      await Promise.all(apps.map((app) => waitUntilLive(app)));
      const created = await cli(['workspace', 'create', '--name', 'cli mcp', '--plan', 'enterprise', '--json']);
      workspace = (JSON.parse(created.stdout) as { workspace_id: string }).workspace_id;
    });
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.stop()));
      await fake.stop();
    });

    it('creates, shows, lists, tests, updates, approves and deletes a server; headers go in as --header and never come out', async () => {
      const created = await cli([
        'mcp-server',
        'create',
        workspace,
        '--id',
        'tools',
        '--name',
        'Tools',
        '--url',
        fake.url,
        '--header',
        `Authorization: Bearer ${token}`,
        '--json',
      ]);
      expect(created).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(created.stdout)).toMatchObject({ id: 'tools', headers: { Authorization: '********' }, tools: expect.any(Array) });
      expect(created.stdout).not.toContain(token);

      const table = await cli(['mcp-server', 'list', workspace]);
      expect(table).toMatchObject({ code: 0, stderr: '' });
      expect(table.stdout.split('\n')[0]).toMatch(/^id\s+name\s+url\s+enabled\s+timeout_ms\s+headers\s+tools\s+tools_approved_at$/);
      expect(table.stdout).toMatch(/\ntools\s+Tools\s+\S+\s+yes\s+60000\s+Authorization\s+5\s/);

      fake.setTool({ name: 'echo', description: 'Changed.', inputSchema: { type: 'object' } });
      const tested = await cli(['mcp-server', 'test', workspace, 'tools']);
      expect(tested).toMatchObject({ code: 0, stderr: '' });
      expect(tested.stdout).toMatch(/\necho\s+changed\s+2026-07-28\n/);
      expect(tested.stdout).toMatch(/\nadd\s+approved\s+2026-07-28\n/);
      const approved = await cli(['mcp-server', 'approve', workspace, 'tools', '--json']);
      expect(JSON.parse(approved.stdout).tools[0]).toMatchObject({ name: 'echo', description: 'Changed.' });
      fake.resetTools();

      const definition = write('draft.yaml', `id: draft\nname: Draft\nurl: ${fake.url}\n`);
      const unsaved = await cli([
        'mcp-server',
        'test',
        workspace,
        '--file',
        definition,
        '--header',
        'Authorization: Bearer wrong',
        '--json',
      ]);
      expect(unsaved).toMatchObject({ code: 1, stdout: '' });
      expect(JSON.parse(unsaved.stderr)).toMatchObject({
        error_code: 'mcp_connection_failed',
        details: { stage: 'unauthorized', status: 401 },
      });

      const updated = await cli(['mcp-server', 'update', workspace, 'tools', '--name', 'Renamed', '--timeout-ms', '5000', '--json']);
      expect(JSON.parse(updated.stdout)).toMatchObject({ name: 'Renamed', timeout_ms: 5000, headers: { Authorization: '********' } });
      const shown = await cli(['mcp-server', 'show', workspace, 'tools', '--json']);
      expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'Renamed' });

      expect(await cli(['mcp-server', 'delete', workspace, 'tools'])).toMatchObject({ code: 64 });
      expect(await cli(['mcp-server', 'delete', workspace, 'tools', '--yes', '--json'])).toMatchObject({
        code: 0,
        stdout: '{"id":"tools"}\n',
      });
      const gone = await cli(['mcp-server', 'show', workspace, 'tools', '--json']);
      expect(gone.code).toBe(1);
      expect(JSON.parse(gone.stderr)).toMatchObject({ error_code: 'resource_not_found' });
      expect((await cli(['mcp-server', 'create', workspace, '--header', 'no colon'])).code).toBe(64);
    });

    it('applies mcp_servers before prompts; applying the same file again changes nothing and connects to nothing', async () => {
      const file = write(
        'definitions.yaml',
        [
          'mcp_servers:',
          '  - id: search',
          '    name: Search',
          `    url: ${fake.url}`,
          `    headers: { Authorization: "Bearer ${token}" }`,
          '  - id: later',
          '    name: Later',
          '    url: https://mcp.example.com/mcp',
          '    enabled: false',
          'prompts:',
          '  - deployment: mcp-cli-reply',
          '    variants:',
          '      - { name: default, model: gpt-6-luna, messages: [{ role: user, content: "{{ question }}" }] }',
          '',
        ].join('\n'),
      );
      const first = await cli(['apply', '-f', file, '--workspace', workspace, '--json']);
      expect(first).toMatchObject({ code: 0, stderr: '' });
      const applied = JSON.parse(first.stdout) as { mcp_servers: unknown; prompts: Array<{ deployment: string }> };
      expect(applied.mcp_servers).toEqual([
        { id: 'search', action: 'created' },
        { id: 'later', action: 'created' },
      ]);
      expect(applied.prompts.map((prompt) => prompt.deployment)).toEqual(['mcp-cli-reply']);

      fake.clearRequests();
      const again = await cli(['apply', '-f', file, '--workspace', workspace]);
      expect(again).toMatchObject({ code: 0, stderr: '' });
      expect(again.stdout).toMatch(/^mcp_server\s+action\nsearch\s+unchanged\nlater\s+unchanged\n/);
      expect(fake.requests).toEqual([]);

      // A changed header value is a change: the server is tested again with it.
      const changed = write('changed.yaml', readFileSync(file, 'utf8').replace(`Bearer ${token}`, 'Bearer rotated'));
      const refused = await cli(['apply', '-f', changed, '--workspace', workspace, '--json']);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr)).toMatchObject({ error_code: 'mcp_connection_failed', details: { stage: 'unauthorized' } });
      expect(fake.requests.some((request) => request.headers.authorization === 'Bearer rotated')).toBe(true);
    });
  });
});
