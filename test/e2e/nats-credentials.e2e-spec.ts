import type { AppliedDeployment } from '@waggle/contracts';
import {
  cliJson,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  REPO_ROOT,
  spawnApp,
  startOwnNats,
  waitUntilLive,
  type AppProcess,
  type OwnServer,
} from '@waggle/testing';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const PROMPTS = `
prompts:
  - deployment: private-bus
    variants:
      - name: default
        model: fake-bus-chat
        messages:
          - { role: user, content: "{{ question }}" }
`;

/** The one line an app or the CLI prints when the server refuses its credentials. */
const refusedLine = (app: string) =>
  `${app}: refusing to start: the NATS server refused its credentials (Authorization Violation); set NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE to credentials it accepts`;

/** What a process printed, without the warnings Node itself may add (none are Waggle's). */
const linesOf = (output: string) => output.split('\n').filter((line) => line.trim() !== '');

/**
 * The whole stack on a NATS of its own that demands a user and password (JetStream on, as
 * production runs it): apps and the CLI given the credentials in NATS_USER / NATS_PASSWORD
 * serve a request end to end over HTTP; given none, wrong ones, or ones inside NATS_URL,
 * they refuse to start with one line and exit 78, and never print the password.
 */
describe('a private bus: NATS with credentials', () => {
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const fake = new FakeProviderServer();
  const apps: AppProcess[] = [];
  let nats: OwnServer;
  let natsDir: string;
  let natsUrl: string;
  let catalogRestored = false;
  let withCredentials: Record<string, string>;
  let gateway: string;

  beforeAll(async () => {
    natsDir = mkdtempSync(join(tmpdir(), 'waggle-private-bus-'));
    const started = await startOwnNats(await freePort(), natsDir, {
      config: `authorization { user: waggle, password: "${password}" }`,
    });
    nats = started.server;
    natsUrl = started.url;
    withCredentials = { NATS_URL: natsUrl, NATS_USER: 'waggle', NATS_PASSWORD: password, LOG_LEVEL: 'warn' };
  });

  afterAll(async () => {
    // Back to the shipped catalog (unless the last test did it), for the next spec's versions.
    if (!catalogRestored) await cliJson(['catalog', 'load', '--force'], withCredentials);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
    await nats.stop();
  });

  it('refuses to start an app given no credentials: one line, exit 78', async () => {
    const catalog = spawnApp('catalog', await freePort(), { NATS_URL: natsUrl, LOG_LEVEL: 'warn' });
    await expect(catalog.exited).resolves.toBe(78);
    expect(linesOf(catalog.output())).toEqual([refusedLine('catalog')]);
  });

  it('refuses to start an app whose password is wrong, without printing it', async () => {
    const wrong = `wrong-${randomBytes(8).toString('hex')}`;
    const gatewayApp = spawnApp('gateway', await freePort(), {
      NATS_URL: natsUrl,
      NATS_USER: 'waggle',
      NATS_PASSWORD: wrong,
      LOG_LEVEL: 'debug',
    });
    await expect(gatewayApp.exited).resolves.toBe(78);
    expect(gatewayApp.output()).toContain(refusedLine('gateway'));
    expect(gatewayApp.output()).not.toContain(wrong);
  });

  it('refuses credentials inside NATS_URL as a configuration error, without echoing them', async () => {
    const invocation = spawnApp('invocation', await freePort(), {
      NATS_URL: natsUrl.replace('nats://', `nats://waggle:${password}@`),
      LOG_LEVEL: 'warn',
    });
    await expect(invocation.exited).resolves.toBe(78);
    expect(invocation.output()).toContain('NATS_URL: NATS_URL must name servers only, without credentials');
    expect(invocation.output()).not.toContain(password);
  });

  it('refuses the CLI without credentials: one line, exit 78', async () => {
    const cli = await run(process.execPath, [join(REPO_ROOT, 'dist/tools/cli/src/main.js'), 'workspace', 'list', '--json'], {
      cwd: REPO_ROOT,
      env: { ...process.env, NATS_URL: natsUrl },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(cli.code).toBe(78);
    expect(linesOf(cli.stderr)).toEqual([refusedLine('waggle-cli')]);
  });

  describe('given the credentials', () => {
    let key: string;

    beforeAll(async () => {
      const fakeUrl = await fake.start();
      const env = { ...withCredentials, FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', OPENAI_API_KEY: '' };
      apps.push(
        spawnApp('catalog', await freePort(), env),
        spawnApp('invocation', await freePort(), env),
        spawnApp('gateway', await freePort(), env),
      );
      await Promise.all(apps.map((app) => waitUntilLive(app)));
      gateway = apps[2].baseUrl;

      // The operator CLI reaches the services over the same authenticated bus.
      await loadCatalogWithFakeModels('2099.20.1', [fakeModel('fake-bus-chat')], withCredentials);
      const created = await cliJson<{ workspace_id: string; api_key: string }>(
        ['workspace', 'create', '--name', 'private bus'],
        withCredentials,
      );
      key = created.api_key;
      const prompts = join(mkdtempSync(join(tmpdir(), 'waggle-private-bus-prompts-')), 'prompts.yaml');
      writeFileSync(prompts, PROMPTS);
      await cliJson<AppliedDeployment[]>(['apply', '-f', prompts, '--workspace', created.workspace_id], withCredentials);
    });

    it('serves a prompt invoke end to end over HTTP', async () => {
      const response = await fetch(`${gateway}/v1/prompt/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ deployment: 'private-bus', variant: 'default', inputs: { question: 'Is the bus private?' } }),
      });
      expect({ status: response.status, body: (await response.json()) as unknown }).toMatchObject({
        status: 200,
        body: { model: 'fake-bus-chat', response: 'Echo: Is the bus private?', stop_reason: 'completed' },
      });
    });

    it('lists the workspace through the CLI with the credentials', async () => {
      const workspaces = await cliJson<Array<{ name: string }>>(['workspace', 'list'], withCredentials);
      expect(workspaces.map((workspace) => workspace.name)).toContain('private bus');
    });

    it('keeps idle connections open longer than a load balancer does: Keep-Alive: timeout=65', async () => {
      const headers = await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
        get(`${gateway}/health/live`, { headers: { connection: 'keep-alive' } }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.headers));
        }).on('error', reject);
      });
      expect(headers.connection).toBe('keep-alive');
      expect(headers['keep-alive']).toBe('timeout=65');
    });

    it('stops every app with one line and exit 78 once the server no longer accepts its credentials', async () => {
      await cliJson(['catalog', 'load', '--force'], withCredentials);
      catalogRestored = true;
      // The password rotated on the server (config reload) and not in the apps: the server
      // drops them, and their reconnects are refused.
      const rotated = `pw-${randomBytes(12).toString('hex')}`;
      writeFileSync(join(natsDir, 'nats.conf'), `authorization { user: waggle, password: "${rotated}" }`);
      if (!nats.pid) throw new Error('the test NATS is not running');
      process.kill(nats.pid, 'SIGHUP');
      await expect(Promise.all(apps.map((app) => app.exited))).resolves.toEqual([78, 78, 78]);
      for (const app of apps) {
        const stopping = linesOf(app.output()).filter((line) => line.includes('refused its credentials'));
        expect(stopping).toEqual([
          `${app.app}: stopping: the NATS server refused its credentials (Authorization Violation); set NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE to credentials it accepts`,
        ]);
        expect(app.output()).not.toContain(password);
        expect(app.output()).not.toContain(rotated);
      }
    });
  });
});
