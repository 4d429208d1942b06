import { Client } from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';
import type { PostgresDataSourceOptions } from './data-source-options';

/** Held for the whole run so two migrate jobs (a Helm hook and a laptop) never interleave. */
const MIGRATION_LOCK_KEY = 0x5761_6767; // "Wagg"

function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  return name;
}

function quoteIdentifier(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

/** Creates the database named by the URL when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
    return true;
  } finally {
    await client.end();
  }
}

export interface ServiceMigrationTarget {
  service: string;
  options: PostgresDataSourceOptions;
}

export interface MigrationReport {
  service: string;
  schema: string;
  applied: string[];
}

export interface MigrateOptions {
  /** Drop every service schema first. Refused unless the database name ends in `_test`. */
  reset?: boolean;
  log?: (line: string) => void;
}

/**
 * Runs every service's migrations against its own schema, in order, under an advisory
 * lock. Each schema is created first: TypeORM keeps a service's migrations table inside it.
 */
export async function migrateAll(url: string, targets: ServiceMigrationTarget[], options: MigrateOptions = {}): Promise<MigrationReport[]> {
  const log = options.log ?? (() => undefined);
  const name = databaseName(url);
  if (options.reset && !name.endsWith('_test')) {
    throw new Error(`refusing to reset "${name}": only a database whose name ends in _test can be reset`);
  }
  if (await ensureDatabase(url)) log(`created database ${name}`);
  const lock = new Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const reports: MigrationReport[] = [];
    for (const { service, options: dataSourceOptions } of targets) {
      const schema = dataSourceOptions.schema;
      if (!schema) throw new Error(`${service} has no schema in its data source options`);
      if (options.reset) await lock.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
      await lock.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
      const dataSource = new DataSource({ ...dataSourceOptions, url, logging: false });
      await dataSource.initialize();
      try {
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        reports.push({ service, schema, applied: applied.map((migration) => migration.name) });
        log(
          `${service}: schema ${schema}, ${applied.length} migration(s) applied${applied.length ? `: ${applied.map((m) => m.name).join(', ')}` : ''}`,
        );
      } finally {
        await dataSource.destroy();
      }
    }
    return reports;
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.end();
  }
}

export interface MigrationStatus {
  service: string;
  schema: string;
  /** Migrations of this version recorded in the schema's migrations table, oldest first. */
  applied: string[];
  /** Migrations of this version not applied yet, oldest first: `migrate` would run these. */
  pending: string[];
  /**
   * Recorded in the migrations table but not part of this version: the database was migrated
   * by a newer version (what a rollback leaves behind; the older code runs on the expanded schema).
   */
  unknown: string[];
}

function migrationNames(service: string, options: PostgresDataSourceOptions): string[] {
  return ((options.migrations ?? []) as unknown[]).map((migration) => {
    if (typeof migration !== 'function') throw new Error(`${service}: migrations must be classes to report their status`);
    const instance = new (migration as new () => MigrationInterface)();
    return instance.name ?? migration.name;
  });
}

/**
 * What `migrate` would do, without doing it: per service, the migrations applied, pending, and
 * recorded by a newer version. Read-only (no lock, no schema or table created); a database or
 * schema that does not exist yet has every migration pending.
 */
export async function migrationStatus(url: string, targets: ServiceMigrationTarget[]): Promise<MigrationStatus[]> {
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    // 3D000 invalid_catalog_name: the database is not created yet (`migrate` creates it).
    if ((error as { code?: string }).code !== '3D000') throw error;
    return targets.map(({ service, options }) => ({
      service,
      schema: options.schema ?? '',
      applied: [],
      pending: migrationNames(service, options),
      unknown: [],
    }));
  }
  try {
    const statuses: MigrationStatus[] = [];
    for (const { service, options } of targets) {
      const schema = options.schema;
      if (!schema) throw new Error(`${service} has no schema in its data source options`);
      const table = `${quoteIdentifier(schema)}.${quoteIdentifier(options.migrationsTableName ?? 'migrations')}`;
      const { rows: found } = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
      const recorded = found[0]?.present
        ? (await client.query<{ name: string }>(`SELECT name FROM ${table} ORDER BY "timestamp", id`)).rows.map((row) => row.name)
        : [];
      const defined = migrationNames(service, options);
      const recordedSet = new Set(recorded);
      const definedSet = new Set(defined);
      statuses.push({
        service,
        schema,
        applied: defined.filter((name) => recordedSet.has(name)),
        pending: defined.filter((name) => !recordedSet.has(name)),
        unknown: recorded.filter((name) => !definedSet.has(name)),
      });
    }
    return statuses;
  } finally {
    await client.end();
  }
}
