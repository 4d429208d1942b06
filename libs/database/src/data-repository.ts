import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import type { SqlStatement } from './sql';

/** The transaction a call runs inside, per data source (a test may hold several). */
interface AmbientTransaction {
  readonly dataSource: DataSource;
  readonly manager: EntityManager;
}

const ambient = new AsyncLocalStorage<AmbientTransaction>();

/**
 * The base of every repository: the only code that talks to the database.
 *
 * The data-access rule (docs/contributing/service-template.md, "Data"):
 * - One repository per table or aggregate; services receive repositories, never a
 *   `DataSource`, an `EntityManager` or a TypeORM `Repository`.
 * - CRUD on one table by equality (find by key, insert, save, delete, a filtered and ordered
 *   list) goes through the entity's TypeORM repository (`this.table(E)`).
 *   Everything else is raw SQL declared once with `defineSql` beside the repository and run
 *   with `this.rows`/`this.execute`; no query builder. `npm run sql:snapshot` writes every
 *   statement to the `.sql` file beside its repository and a unit spec fails when they drift.
 * - A unit of work is `repository.transaction(() => …)`: every repository call inside it,
 *   whichever repository of the same data source makes it, runs in that one transaction (the
 *   transaction travels with the async context, so no manager is passed around). A nested
 *   `transaction` joins the enclosing one. Work started inside and left running after the
 *   callback returns must not touch the database: the transaction is over.
 */
export abstract class DataRepository {
  protected constructor(protected readonly dataSource: DataSource) {}

  /** Runs `work` in one transaction (or inside the one already open on this data source). */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    if (ambient.getStore()?.dataSource === this.dataSource) return work();
    return this.dataSource.transaction((manager) => ambient.run({ dataSource: this.dataSource, manager }, work));
  }

  /** True inside `transaction` (on this data source). */
  protected get inTransaction(): boolean {
    return ambient.getStore()?.dataSource === this.dataSource;
  }

  /** The open transaction's manager, or the pool's. */
  protected get db(): EntityManager {
    const open = ambient.getStore();
    return open?.dataSource === this.dataSource ? open.manager : this.dataSource.manager;
  }

  /** The entity's TypeORM repository, inside the open transaction if there is one: for CRUD on one table by equality. */
  protected table<Entity extends ObjectLiteral>(entity: EntityTarget<Entity>): Repository<Entity> {
    return this.db.getRepository(entity);
  }

  /** Runs a declared statement and answers its rows (an UPDATE or DELETE: the rows its RETURNING gives). */
  protected async rows<Row>(statement: SqlStatement<Row>, params: readonly unknown[] = []): Promise<Row[]> {
    const result = await this.run(statement, params);
    return result.rows as Row[];
  }

  /** The first row of a declared statement, or null. */
  protected async row<Row>(statement: SqlStatement<Row>, params: readonly unknown[] = []): Promise<Row | null> {
    const rows = await this.rows(statement, params);
    return rows[0] ?? null;
  }

  /** Runs a declared statement and answers how many rows it changed (an INSERT: how many it returned). */
  protected async execute(statement: SqlStatement<unknown>, params: readonly unknown[] = []): Promise<number> {
    return (await this.run(statement, params)).count;
  }

  /** pg through TypeORM answers an UPDATE or DELETE as `[rows, count]` and anything else as its rows: one shape here. */
  private async run(statement: SqlStatement<unknown>, params: readonly unknown[]): Promise<{ rows: unknown[]; count: number }> {
    const result: unknown = await this.db.query(statement.text, params as unknown[]);
    if (!Array.isArray(result)) return { rows: [], count: 0 };
    if (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return { rows: result[0], count: result[1] };
    return { rows: result, count: result.length };
  }
}
