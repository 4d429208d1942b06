import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/database';
import { KNOWLEDGE_BASE_ENTITIES } from '../knowledge-bases/entities';
import { MIGRATIONS } from './migrations';

export const SCHEMA = 'knowledge_base';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: [...KNOWLEDGE_BASE_ENTITIES],
    migrations: MIGRATIONS,
    applicationName: 'waggle-knowledge-base',
  });
}
