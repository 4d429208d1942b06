import { DataSource } from 'typeorm';
import { loadDeclaredSql } from '../src/sql-snapshot';

// The integration tier's setup points DATABASE_URL at the test database (test/setup/test-env.ts).
const TEST_DATABASE_URL = String(process.env.DATABASE_URL);

/**
 * Every statement a repository declares is prepared against the migrated schema (one that makes
 * a schema object is run and rolled back): a typo, a column a migration renamed or a parameter
 * PostgreSQL cannot type fails here, not at run time.
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
      if (/^CREATE\b/i.test(text)) {
        // PostgreSQL prepares queries only: a statement that makes a schema object (an index a
        // repository creates at run time) is run, and rolled back.
        await runner.startTransaction();
        try {
          await runner.query(text);
        } finally {
          await runner.rollbackTransaction();
        }
        return;
      }
      await runner.query(`PREPARE sql_statement_check AS ${text}`);
      await runner.query('DEALLOCATE sql_statement_check');
    } finally {
      await runner.release();
    }
  });
});
