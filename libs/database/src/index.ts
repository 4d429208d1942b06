// Database code the services and the migrate tool share. Kept out of @waggle/platform so
// the gateway, which never touches a database, loads neither TypeORM nor pg.
export { serviceDataSourceOptions, type PostgresDataSourceOptions, type ServiceDataSourceSpec } from './data-source-options';
export {
  ensureDatabase,
  migrateAll,
  migrationStatus,
  type MigrateOptions,
  type MigrationReport,
  type MigrationStatus,
  type ServiceMigrationTarget,
} from './migrate';
export { snakeCase, type RowOf, type SnakeCase } from './row-of';
export { TimestampColumns, WebhookOwnerColumns, WorkspaceResourceColumns } from './entity-columns';
export { DataRepository } from './data-repository';
export { declaredSql, defineSql, sql, sqlSnapshot, type SqlStatement } from './sql';
export { bigintAsNumber } from './bigint-number.transformer';
