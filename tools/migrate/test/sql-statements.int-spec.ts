import { DataSource } from 'typeorm';
import { TEST_DATABASE_URL } from '../../../test/setup/test-env';
import { loadDeclaredSql } from '../src/sql-snapshot';

/**
 * Every statement a repository declares is prepared against the migrated schema: a typo, a
 * column a migration renamed or a parameter PostgreSQL cannot type fails here, not at run time.
 */
describe('every declared SQL statement', () => {
  const declared = [...loadDeclaredSql()].flatMap(([source, statements]) =>
    Object.entries(statements).map(([name, statement]) => ({ id: `${source} ${name}`, text: statement.text })),
  );
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'postgres', url: TEST_DATABASE_URL }).initialize();
  });

  afterAll(() => dataSource.destroy());

  it('is declared by some repository', () => {
    expect(declared.length).toBeGreaterThan(0);
  });

  it.each(declared.map((statement) => [statement.id, statement.text]))('%s prepares against the migrated schema', async (_id, text) => {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.query(`PREPARE sql_statement_check AS ${text}`);
      await runner.query('DEALLOCATE sql_statement_check');
    } finally {
      await runner.release();
    }
  });
});
