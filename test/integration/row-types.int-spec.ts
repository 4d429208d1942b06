import { DOMAIN_SERVICES } from '@waggle/contracts';
import { snakeCase, type PostgresDataSourceOptions } from '@waggle/database';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { TEST_DATABASE_URL } from '../setup/test-env';

/**
 * Repositories that query in plain SQL type their rows as `RowOf<Entity>`: each column
 * property under snakeCase(property). That type is only true if every entity column is
 * named so and the migrated table has exactly the entity's columns, which this holds for
 * every entity of every service (a column renamed in a migration or in `@Column({ name })`
 * alone fails here; one renamed in the entity breaks compilation of the repositories).
 */
describe.each(DOMAIN_SERVICES)('%s row types', (service) => {
  let dataSource: DataSource;

  beforeAll(async () => {
    // Loaded by path, as the migrate command does: tests may not import apps.
    const { dataSourceOptions } = require(join(__dirname, '../../apps', service, 'src/database/data-source')) as {
      dataSourceOptions(url: string): PostgresDataSourceOptions;
    };
    dataSource = await new DataSource(dataSourceOptions(TEST_DATABASE_URL)).initialize();
  });

  afterAll(() => dataSource.destroy());

  it('names every entity column snakeCase(property)', () => {
    const misnamed = dataSource.entityMetadatas.flatMap((entity) =>
      entity.columns
        .filter((column) => column.databaseName !== snakeCase(column.propertyName))
        .map((column) => `${entity.tableName}.${column.databaseName} (property ${column.propertyName})`),
    );
    expect(misnamed).toEqual([]);
  });

  it('has exactly the entity columns in each migrated table', async () => {
    for (const entity of dataSource.entityMetadatas) {
      const rows = (await dataSource.query(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY column_name',
        [entity.schema, entity.tableName],
      )) as Array<{ column_name: string }>;
      const entityColumns = [...new Set(entity.columns.map((column) => column.databaseName))].sort();
      expect({ table: entity.tableName, columns: rows.map((row) => row.column_name).sort() }).toEqual({
        table: entity.tableName,
        columns: entityColumns,
      });
    }
  });
});

/** The chunk table has no entity (the chunk index writes it in plain SQL): its read-back row is held to the table here. */
describe('knowledge-base chunk rows', () => {
  it('reads only columns the migrated chunks table has', async () => {
    const { CHUNK_ROW_COLUMNS } = require(join(__dirname, '../../apps/knowledge-base/src/index/chunks.repository')) as {
      CHUNK_ROW_COLUMNS: string[];
    };
    const dataSource = await new DataSource({ type: 'postgres', url: TEST_DATABASE_URL }).initialize();
    try {
      const rows = (await dataSource.query(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'knowledge_base' AND table_name = 'chunks'",
      )) as Array<{ column_name: string }>;
      const columns = new Set(rows.map((row) => row.column_name));
      expect(CHUNK_ROW_COLUMNS.length).toBeGreaterThan(0);
      expect(CHUNK_ROW_COLUMNS.filter((column) => !columns.has(column))).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});
