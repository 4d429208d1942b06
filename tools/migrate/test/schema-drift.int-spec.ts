import { DOMAIN_SERVICES } from '@waggle/contracts';
import type { PostgresDataSourceOptions } from '@waggle/database';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { pendingSchemaChanges } from '../src/generate-migration';

// The integration tier's setup points DATABASE_URL at the test database (test/setup/test-env.ts).
const TEST_DATABASE_URL = String(process.env.DATABASE_URL);

/**
 * After the migrations, every service's schema is exactly what its entities describe:
 * TypeORM's schema builder has nothing left to change. A migration forgotten after an
 * entity change fails here.
 */
describe.each(DOMAIN_SERVICES)('%s schema', (service) => {
  it('matches its entities after the migrations', async () => {
    const { dataSourceOptions } = require(join(__dirname, '../../../apps', service, 'src/database/data-source')) as {
      dataSourceOptions(url: string): PostgresDataSourceOptions;
    };
    const dataSource = new DataSource(dataSourceOptions(TEST_DATABASE_URL));
    await dataSource.initialize();
    try {
      // The same diff `npm run migration:generate` would write as a migration.
      const pending = await pendingSchemaChanges(dataSource);
      expect(pending.up.map((query) => query.query)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});
