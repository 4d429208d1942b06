import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/platform';
import { DELIVERY_ENTITIES } from '../deliveries/entities';
import { CreateDeliveryLog1763784000000 } from './migrations/1763784000000-create-delivery-log';

export const SCHEMA = 'callback_dispatcher';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: DELIVERY_ENTITIES,
    migrations: [CreateDeliveryLog1763784000000],
    applicationName: 'waggle-callback-dispatcher',
  });
}
