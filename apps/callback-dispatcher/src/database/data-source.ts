import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/database';
import { DELIVERY_ENTITIES } from '../deliveries/entities';
import { MIGRATIONS } from './migrations';

export const SCHEMA = 'callback_dispatcher';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: DELIVERY_ENTITIES,
    migrations: MIGRATIONS,
    applicationName: 'waggle-callback-dispatcher',
  });
}
