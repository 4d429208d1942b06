import { DOMAIN_SERVICES } from '@waggle/contracts';
import { pendingSchemaChanges, type PostgresDataSourceOptions } from '@waggle/platform';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { TEST_DATABASE_URL } from '../setup/test-env';

/**
 * After the migrations, every service's schema is exactly what its entities describe:
 * TypeORM's schema builder has nothing left to change. A migration forgotten after an
 * entity change fails here.
 */
describe.each(DOMAIN_SERVICES)('%s schema', (service) => {
  it('matches its entities after the migrations', async () => {
    const { dataSourceOptions } = require(join(__dirname, '../../apps', service, 'src/database/data-source')) as {
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
