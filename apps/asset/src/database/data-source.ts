import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/database';
import { ASSET_ENTITIES } from '../assets/entities';
import { MIGRATIONS } from './migrations';

export const SCHEMA = 'asset';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: [...ASSET_ENTITIES],
    migrations: MIGRATIONS,
    applicationName: 'waggle-asset',
  });
}
