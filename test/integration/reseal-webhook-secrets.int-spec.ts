import { REPO_ROOT } from '@waggle/testing';
import { SecretSealer } from '@waggle/webhooks';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from '../setup/test-env';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function migrate(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'dist/tools/migrate/src/main.js'), ...args],
      { cwd: REPO_ROOT, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code) : 0, stdout, stderr }),
    );
  });
}

describe('migrate reseal-webhook-secrets (WEBHOOK_SECRET_KEY rotation)', () => {
  // A database of its own, migrated here and dropped at the end: the rows are sealed under keys of this test.
  const scratchName = `waggle_reseal_${randomBytes(4).toString('hex')}_test`;
  const scratchUrl = TEST_DATABASE_URL.replace(/\/[^/]+$/, `/${scratchName}`);
  const maintenanceUrl = TEST_DATABASE_URL.replace(/\/[^/]+$/, '/postgres');
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const ring = (...keys: Buffer[]) => keys.map((key) => key.toString('base64')).join(',');
  const plain = {
    agent: 'whsec_agent',
    agentPrevious: 'whsec_agent_previous',
    prompt: 'whsec_prompt',
    workflow: 'whsec_workflow',
    mcpHeaders: '{"Authorization":"Bearer mcp"}',
    budget: 'whsec_budget',
    providerKey: 'sk-workspace-provider-key',
  };
  let client: Client;

  const sealedValues = async (): Promise<string[]> => {
    const { rows } = await client.query<{ sealed: string }>(
      `SELECT webhook_secret_sealed AS sealed FROM agent.agents UNION ALL SELECT previous_webhook_secret_sealed FROM agent.agents
       UNION ALL SELECT webhook_secret_sealed FROM invocation.prompt_deployments UNION ALL SELECT webhook_secret_sealed FROM invocation.workflow_deployments
       UNION ALL SELECT headers_sealed FROM agent.mcp_servers UNION ALL SELECT webhook_secret_sealed FROM invocation.budgets
       UNION ALL SELECT api_key_sealed FROM invocation.provider_credentials`,
    );
    return rows.map((row) => row.sealed).sort();
  };

  beforeAll(async () => {
    expect((await migrate([], { DATABASE_URL: scratchUrl })).code).toBe(0);
    client = new Client({ connectionString: scratchUrl });
    await client.connect();
    const old = new SecretSealer(oldKey);
    const workspace = randomUUID();
    await client.query(
      `INSERT INTO agent.agents (workspace_id, name, llm_model, model_type, webhook_secret_sealed, previous_webhook_secret_sealed) VALUES ($1, 'a', 'm', 'chat', $2, $3)`,
      [workspace, old.seal(plain.agent), old.seal(plain.agentPrevious)],
    );
    await client.query(`INSERT INTO invocation.prompt_deployments (workspace_id, name, webhook_secret_sealed) VALUES ($1, 'p', $2)`, [
      workspace,
      old.seal(plain.prompt),
    ]);
    // An MCP server's headers (keyed by workspace and id): sealed under the same ring.
    await client.query(
      `INSERT INTO agent.mcp_servers (workspace_id, id, name, url, headers_sealed) VALUES ($1, 'tools', 't', 'https://x', $2)`,
      [workspace, old.seal(plain.mcpHeaders)],
    );
    // A budget's alert secret (usage governance); a budget without an alert URL has none.
    await client.query(
      `INSERT INTO invocation.budgets (workspace_id, scope, period, limit_micros, alert_url, webhook_secret_sealed)
       VALUES ($1, 'workspace', 'day', 1, 'https://x', $2), ($1, 'workspace', 'month', 1, NULL, NULL)`,
      [workspace, old.seal(plain.budget)],
    );
    // A workspace's own provider key (keyed by workspace and provider): sealed under the same ring.
    await client.query(
      `INSERT INTO invocation.provider_credentials (workspace_id, provider, api_key_sealed, hint) VALUES ($1, 'openai', $2, '-key')`,
      [workspace, old.seal(plain.providerKey)],
    );
    // Sealed after the rotation already (by a service with the new ring): left as it is.
    await client.query(`INSERT INTO invocation.workflow_deployments (workspace_id, name, webhook_secret_sealed) VALUES ($1, 'w', $2)`, [
      workspace,
      new SecretSealer([newKey, oldKey]).seal(plain.workflow),
    ]);
  });

  afterAll(async () => {
    await client?.end();
    const maintenance = new Client({ connectionString: maintenanceUrl });
    await maintenance.connect();
    await maintenance.query(`DROP DATABASE IF EXISTS "${scratchName}" WITH (FORCE)`);
    await maintenance.end();
  });

  it('counts without writing on --dry-run', async () => {
    const before = await sealedValues();
    const run = await migrate(['reseal-webhook-secrets', '--dry-run'], {
      DATABASE_URL: scratchUrl,
      NODE_ENV: 'production',
      WEBHOOK_SECRET_KEY: ring(newKey, oldKey),
    });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('reseal: agent.agents: 1 row(s), 2 sealed value(s) would be sealed again');
    expect(run.stdout).toContain('reseal: agent.mcp_servers: 1 row(s), 1 sealed value(s) would be sealed again');
    expect(run.stdout).toContain('reseal: invocation.budgets: 2 row(s), 1 sealed value(s) would be sealed again');
    expect(run.stdout).toContain('reseal: invocation.provider_credentials: 1 row(s), 1 sealed value(s) would be sealed again');
    expect(run.stdout).toContain('reseal: dry run, nothing written (6 to reseal)');
    expect(await sealedValues()).toEqual(before);
  });

  it('seals every stored secret under the new key, so the old key can leave the ring; a second run changes nothing', async () => {
    const env = { DATABASE_URL: scratchUrl, NODE_ENV: 'production', WEBHOOK_SECRET_KEY: ring(newKey, oldKey) };
    const run = await migrate(['reseal-webhook-secrets'], env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('reseal: invocation.prompt_deployments: 1 row(s), 1 sealed value(s) sealed again');
    expect(run.stdout).toContain('reseal: invocation.workflow_deployments: 1 row(s), 0 sealed value(s) sealed again');
    expect(run.stdout).toContain('reseal: done, 6 resealed');

    const onlyNew = new SecretSealer(newKey);
    const resealed = (await sealedValues()).filter((sealed) => sealed !== null);
    expect(resealed.map((sealed) => onlyNew.open(sealed)).sort()).toEqual(Object.values(plain).sort());
    expect(() => new SecretSealer(oldKey).open(resealed[0])).toThrow(/not in WEBHOOK_SECRET_KEY/);

    const again = await migrate(['reseal-webhook-secrets'], env);
    expect(again.stdout).toContain('reseal: done, 0 resealed');
  });

  it('stops on a value no key of the ring opens, naming the row, and leaves its table unchanged', async () => {
    const dropped = new SecretSealer(randomBytes(32));
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO invocation.prompt_deployments (workspace_id, name, webhook_secret_sealed) VALUES ($1, 'lost', $2) RETURNING id`,
      [randomUUID(), dropped.seal('whsec_lost')],
    );
    const before = await sealedValues();
    const newest = randomBytes(32);
    const run = await migrate(['reseal-webhook-secrets'], {
      DATABASE_URL: scratchUrl,
      NODE_ENV: 'production',
      WEBHOOK_SECRET_KEY: ring(newest, newKey),
    });
    expect(run).toMatchObject({ code: 1 });
    expect(run.stderr).toBe(
      `reseal: failed: invocation.prompt_deployments ${rows[0].id} webhook_secret_sealed: The webhook secret opens under none of the 2 key(s) of WEBHOOK_SECRET_KEY (sealed under a key no longer in the ring, or altered)\n`,
    );
    expect(run.stderr).not.toContain('whsec_lost');
    // Its table (the first one) is rolled back, and the run stops there: nothing was written.
    expect(await sealedValues()).toEqual(before);
  });
});
