import { REPO_ROOT } from '@waggle/testing';
import type { MigrationStatus } from '@waggle/database';
import { DOMAIN_SERVICES } from '@waggle/contracts';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { join } from 'node:path';
import { TEST_DATABASE_URL } from '../setup/test-env';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built migrate tool as the Helm job and `npm run migrate` run it. */
function migrate(args: string[], databaseUrl: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'dist/tools/migrate/src/main.js'), ...args],
      { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code) : 0, stdout, stderr }),
    );
  });
}

describe('migrate status', () => {
  // A database of its own (its name proves it is a test database), dropped at the end.
  const scratchName = `waggle_status_${randomBytes(4).toString('hex')}_test`;
  const scratchUrl = TEST_DATABASE_URL.replace(/\/[^/]+$/, `/${scratchName}`);
  const maintenanceUrl = TEST_DATABASE_URL.replace(/\/[^/]+$/, '/postgres');

  afterAll(async () => {
    const client = new Client({ connectionString: maintenanceUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${scratchName}" WITH (FORCE)`);
    await client.end();
  });

  it('exits 0 on the migrated test database, listing every migration of every service as applied', async () => {
    const run = await migrate(['status', '--json'], TEST_DATABASE_URL);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const statuses = JSON.parse(run.stdout) as MigrationStatus[];
    expect(statuses.map((status) => status.service)).toEqual([...DOMAIN_SERVICES]);
    for (const status of statuses) {
      expect(status).toMatchObject({ pending: [], unknown: [] });
      expect(status.applied.length).toBeGreaterThan(0);
    }
    const text = await migrate(['status'], TEST_DATABASE_URL);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^SERVICE +SCHEMA +STATE +MIGRATION\n/);
    expect(text.stdout).toContain(
      `catalog: ${statuses.find((status) => status.service === 'catalog')?.applied.length} applied, 0 pending\n`,
    );
  });

  it('exits 1 with every migration pending on a database not created yet, and creates nothing', async () => {
    const run = await migrate(['status', '--json'], scratchUrl);
    expect(run.code).toBe(1);
    const statuses = JSON.parse(run.stdout) as MigrationStatus[];
    expect(statuses.every((status) => status.applied.length === 0 && status.pending.length > 0)).toBe(true);
    const client = new Client({ connectionString: maintenanceUrl });
    await client.connect();
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [scratchName]);
    await client.end();
    expect(rowCount).toBe(0);
  });

  it('names a pending migration (exit 1) and one a newer version applied (still exit 0 when nothing is pending)', async () => {
    expect((await migrate([], scratchUrl)).code).toBe(0);
    const client = new Client({ connectionString: scratchUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('SELECT name FROM catalog.migrations ORDER BY "timestamp" DESC LIMIT 1');
      const latest = rows[0].name;
      await client.query('DELETE FROM catalog.migrations WHERE name = $1', [latest]);
      await client.query('INSERT INTO agent.migrations ("timestamp", name) VALUES (9999999999999, \'FromANewerVersion9999999999999\')');

      const pending = await migrate(['status'], scratchUrl);
      expect(pending.code).toBe(1);
      expect(pending.stdout).toMatch(new RegExp(`\\ncatalog +catalog +pending +${latest}\\n`));
      expect(pending.stdout).toMatch(/\nagent +agent +newer +FromANewerVersion9999999999999\n/);
      expect(pending.stdout).toContain('agent: ');
      expect(pending.stdout).toMatch(/agent: \d+ applied, 0 pending, 1 newer \(applied by a later version\)\n/);

      await client.query('INSERT INTO catalog.migrations ("timestamp", name) VALUES ($1, $2)', [Number(latest.slice(-13)), latest]);
      const upToDate = await migrate(['status', '--json'], scratchUrl);
      expect(upToDate.code).toBe(0);
      expect((JSON.parse(upToDate.stdout) as MigrationStatus[]).find((status) => status.service === 'agent')?.unknown).toEqual([
        'FromANewerVersion9999999999999',
      ]);
    } finally {
      await client.end();
    }
  });

  it('exits 69 when PostgreSQL cannot be reached and 78 on a bad DATABASE_URL, in one line', async () => {
    const unreachable = await migrate(['status'], 'postgres://postgres@127.0.0.1:1/waggle_test');
    expect(unreachable).toMatchObject({ code: 69, stdout: '' });
    expect(unreachable.stderr).toMatch(/^migrate status: cannot read the migrations tables: .*ECONNREFUSED.*\n$/);
    expect(await migrate(['status'], 'mysql://nope')).toEqual({
      code: 78,
      stdout: '',
      stderr: 'migrate status: invalid configuration: DATABASE_URL: DATABASE_URL must be a postgres:// URL\n',
    });
  });
});
