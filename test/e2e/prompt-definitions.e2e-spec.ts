import type { AppliedDeployment } from '@waggle/contracts';
import { cliJson, freePort, REPO_ROOT, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from '../setup/test-env';

const definitions = (systemPrompt: string) => `
prompts:
  - deployment: support-reply
    variants:
      - name: default
        model: gpt-6-luna
        messages:
          - { role: system, content: "${systemPrompt}" }
          - { role: user, content: "{{ question }}" }
        params: { temperature: 0.2, max_tokens: 512 }
      - name: vision
        model: gpt-6-luna
        image_inputs: [photo]
        messages:
          - { role: user, content: "Describe {{ photo }} for {{ customer.name }}" }
`;

describe('prompt definitions applied with the CLI', () => {
  const apps: AppProcess[] = [];
  const directory = mkdtempSync(join(tmpdir(), 'waggle-prompts-'));
  const write = (name: string, text: string) => {
    const file = join(directory, name);
    writeFileSync(file, text);
    return file;
  };
  let workspace: string;

  beforeAll(async () => {
    apps.push(
      spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' }),
      spawnApp('invocation', await freePort(), { LOG_LEVEL: 'warn' }),
    );
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    workspace = (await cliJson<{ workspace_id: string }>(['workspace', 'create', '--name', 'e2e prompts'])).workspace_id;
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  it('creates deployments and variants, with a webhook secret, and changes nothing when applied twice', async () => {
    const file = write('v1.yaml', definitions('You answer for {{ company }}.'));
    const first = await cliJson<AppliedDeployment[]>(['apply', '-f', file, '--workspace', workspace]);
    expect(first).toEqual([
      {
        deployment: 'support-reply',
        prompt_endpoint_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        created: true,
        variants: [
          { name: 'default', variant_id: expect.stringMatching(/^[0-9a-f-]{36}$/), version: 1, changed: true },
          { name: 'vision', variant_id: expect.stringMatching(/^[0-9a-f-]{36}$/), version: 1, changed: true },
        ],
      },
    ]);
    const again = await cliJson<AppliedDeployment[]>(['apply', '-f', file, '--workspace', workspace]);
    expect(again).toEqual([
      { ...first[0], created: false, variants: first[0].variants.map((variant) => ({ ...variant, changed: false })) },
    ]);
  });

  it('makes a new version when a variant changes, repoints it and keeps the old one', async () => {
    const before = await cliJson<AppliedDeployment[]>([
      'apply',
      '-f',
      write('same.yaml', definitions('You answer for {{ company }}.')),
      '--workspace',
      workspace,
    ]);
    const after = await cliJson<AppliedDeployment[]>([
      'apply',
      '-f',
      write('v2.yaml', definitions('You answer for {{ company }} in {{ language }}.')),
      '--workspace',
      workspace,
    ]);
    const [defaultBefore, visionBefore] = before[0].variants;
    const [defaultAfter, visionAfter] = after[0].variants;
    expect(defaultAfter).toEqual({ ...defaultBefore, version: defaultBefore.version + 1, changed: true });
    expect(visionAfter).toEqual({ ...visionBefore, changed: false });
    expect(after[0].webhook_secret).toBe(before[0].webhook_secret);

    const db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ version: number; variables: string[] }>(
        'SELECT version, variables FROM invocation.prompt_versions WHERE variant_id = $1 ORDER BY version',
        [defaultAfter.variant_id],
      );
      expect(rows).toEqual([
        { version: 1, variables: ['company', 'question'] },
        { version: 2, variables: ['company', 'language', 'question'] },
      ]);
    } finally {
      await db.end();
    }
  });

  it('refuses an invalid template or definition with validation_error, writing nothing', async () => {
    const run = promisify(execFile);
    const bad = write('bad.yaml', definitions('{{ company | no_such_filter }}').replace('support-reply', 'broken-reply'));
    const failure = await run(process.execPath, [
      join(REPO_ROOT, 'dist/tools/cli/src/main.js'),
      'apply',
      '-f',
      bad,
      '--workspace',
      workspace,
      '--json',
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect(JSON.parse((failure as { stderr: string }).stderr)).toMatchObject({ error_code: 'validation_error' });

    const badRole = write(
      'role.yaml',
      'prompts:\n  - deployment: other\n    variants:\n      - { name: a, model: gpt-6-luna, messages: [{ role: robot, content: hi }] }\n',
    );
    const roleFailure = await run(process.execPath, [
      join(REPO_ROOT, 'dist/tools/cli/src/main.js'),
      'apply',
      '-f',
      badRole,
      '--workspace',
      workspace,
      '--json',
    ]).catch((error: { stderr: string }) => error);
    expect(JSON.parse((roleFailure as { stderr: string }).stderr)).toMatchObject({
      error_code: 'validation_error',
      details: [{ field: 'prompts.0.variants.0.messages.0.role' }],
    });

    const listed = await cliJson<AppliedDeployment[]>(['apply', '-f', write('empty.yaml', 'prompts: []\n'), '--workspace', workspace]);
    expect(listed).toEqual([]);
    const db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    try {
      const { rowCount } = await db.query("SELECT 1 FROM invocation.prompt_deployments WHERE name IN ('broken-reply', 'other')");
      expect(rowCount).toBe(0);
    } finally {
      await db.end();
    }
  });
});
