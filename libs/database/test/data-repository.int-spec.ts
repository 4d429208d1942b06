import { DataSource } from 'typeorm';
import { DataRepository, defineSql, sql } from '@waggle/database';
import { TEST_DATABASE_URL } from '../../../test/setup/test-env';

const SCHEMA = 'data_repository_spec';

const SQL = defineSql(__filename, {
  insert: sql<{ id: number; name: string }>(`INSERT INTO ${SCHEMA}.things (name) VALUES ($1) RETURNING id, name`),
  names: sql<{ name: string }>(`SELECT name FROM ${SCHEMA}.things ORDER BY id`),
  rename: sql<{ id: number }>(`UPDATE ${SCHEMA}.things SET name = $2 WHERE name = $1 RETURNING id`),
  remove: sql(`DELETE FROM ${SCHEMA}.things WHERE name = $1`),
});

class ThingsRepository extends DataRepository {
  constructor(dataSource: DataSource) {
    super(dataSource);
  }

  async insert(name: string): Promise<number> {
    return (await this.row(SQL.insert, [name]))!.id;
  }

  async names(): Promise<string[]> {
    return (await this.rows(SQL.names)).map((row) => row.name);
  }

  rename(from: string, to: string): Promise<{ id: number }[]> {
    return this.rows(SQL.rename, [from, to]);
  }

  remove(name: string): Promise<number> {
    return this.execute(SQL.remove, [name]);
  }
}

/** A second repository on the same data source: a unit of work spans repositories. */
class AuditRepository extends DataRepository {
  constructor(dataSource: DataSource) {
    super(dataSource);
  }

  async count(): Promise<number> {
    const [row] = (await this.db.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.things`)) as { n: number }[];
    return row!.n;
  }

  get open(): boolean {
    return this.inTransaction;
  }
}

describe('DataRepository', () => {
  let dataSource: DataSource;
  let things: ThingsRepository;
  let audit: AuditRepository;

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'postgres', url: TEST_DATABASE_URL }).initialize();
    await dataSource.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await dataSource.query(`CREATE SCHEMA ${SCHEMA}`);
    await dataSource.query(`CREATE TABLE ${SCHEMA}.things (id serial PRIMARY KEY, name text NOT NULL)`);
    things = new ThingsRepository(dataSource);
    audit = new AuditRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await dataSource.destroy();
  });

  beforeEach(() => dataSource.query(`TRUNCATE ${SCHEMA}.things`));

  it('answers the rows of a SELECT, of an INSERT … RETURNING and of an UPDATE … RETURNING, and the count of a DELETE', async () => {
    await things.insert('a');
    await things.insert('b');
    expect(await things.names()).toEqual(['a', 'b']);
    expect(await things.rename('a', 'c')).toEqual([{ id: expect.any(Number) }]);
    expect(await things.rename('nothing', 'd')).toEqual([]);
    expect(await things.remove('b')).toBe(1);
    expect(await things.remove('b')).toBe(0);
    expect(await things.names()).toEqual(['c']);
  });

  it('runs every repository call inside transaction() in that one transaction, and rolls it all back on a throw', async () => {
    await expect(
      things.transaction(async () => {
        await things.insert('a');
        expect(audit.open).toBe(true);
        // The other repository sees the uncommitted row: it is the same transaction.
        expect(await audit.count()).toBe(1);
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    expect(audit.open).toBe(false);
    expect(await things.names()).toEqual([]);
  });

  it('joins an enclosing transaction instead of opening a second one', async () => {
    await things.transaction(async () => {
      await things.insert('outer');
      await audit.transaction(async () => {
        await things.insert('inner');
      });
      // Another connection does not see either row until the outer transaction commits.
      const [row] = (await dataSource.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.things`)) as { n: number }[];
      expect(row!.n).toBe(0);
    });
    expect(await things.names()).toEqual(['outer', 'inner']);
  });
});
