import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/platform';

export const SCHEMA = 'catalog';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: [],
    migrations: [],
    applicationName: 'waggle-catalog',
  });
}
