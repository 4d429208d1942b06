import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/platform';
import { MIGRATIONS } from './migrations';

export const SCHEMA = 'knowledge_base';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: [],
    migrations: MIGRATIONS,
    applicationName: 'waggle-knowledge-base',
  });
}
