import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';

export type { PostgresDataSourceOptions };

export interface ServiceDataSourceSpec {
  /** The PostgreSQL schema this service owns; no other service reads it. */
  schema: string;
  databaseUrl: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: Function[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: Function[];
  /** Shown in pg_stat_activity. */
  applicationName: string;
}

/**
 * One service's TypeORM settings, shared by the app (TypeOrmModule) and the migrate
 * command. Schema changes happen only through migrations, never `synchronize`.
 */
export function serviceDataSourceOptions(spec: ServiceDataSourceSpec): PostgresDataSourceOptions {
  return {
    type: 'postgres',
    url: spec.databaseUrl,
    schema: spec.schema,
    entities: spec.entities,
    migrations: spec.migrations,
    migrationsTableName: 'migrations',
    migrationsRun: false,
    synchronize: false,
    applicationName: spec.applicationName,
    // gen_random_uuid() is built into PostgreSQL 13+; no extension to install at boot.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    extra: { max: 10, connectionTimeoutMillis: 5_000 },
  };
}
