import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/platform';

export const SCHEMA = 'asset';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: [],
    migrations: [],
    applicationName: 'waggle-asset',
  });
}
