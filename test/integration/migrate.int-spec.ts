import { DOMAIN_SERVICES } from '@waggle/contracts';
import { migrateAll, type ServiceMigrationTarget } from '@waggle/database';
import { Client } from 'pg';
import { join } from 'node:path';
import { TEST_DATABASE_URL } from '../setup/test-env';

function targets(): ServiceMigrationTarget[] {
  return DOMAIN_SERVICES.map((service) => {
    // Loaded by path, as the migrate command does: tests may not import apps either.
    const { dataSourceOptions } = require(join(__dirname, '../../apps', service, 'src/database/data-source'));
    return { service, options: dataSourceOptions(TEST_DATABASE_URL) };
  });
}

describe('migrate', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
  });

  it('gives every service its own schema with its own migrations table', async () => {
    const { rows } = await client.query<{ table_schema: string }>(
      "SELECT table_schema FROM information_schema.tables WHERE table_name = 'migrations' ORDER BY table_schema",
    );
    expect(rows.map((row) => row.table_schema)).toEqual([
      'agent',
      'asset',
      'callback_dispatcher',
      'catalog',
      'invocation',
      'knowledge_base',
    ]);
  });

  it('is idempotent: a second run applies nothing', async () => {
    const reports = await migrateAll(TEST_DATABASE_URL, targets());
    expect(reports.map((report) => report.service)).toEqual([...DOMAIN_SERVICES]);
    expect(reports.every((report) => report.applied.length === 0)).toBe(true);
  });

  it('refuses to reset a database whose name does not prove it is a test database', async () => {
    const production = TEST_DATABASE_URL.replace(/_test$/, '');
    await expect(migrateAll(production, targets(), { reset: true })).rejects.toThrow(/only a database whose name ends in _test/);
  });
});
