import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/platform';
import { INVOCATION_ENTITIES } from '../prompts/entities';
import { CreatePromptTables1763772000000 } from './migrations/1763772000000-create-prompt-tables';
import { CreateRequestLedger1763775600000 } from './migrations/1763775600000-create-request-ledger';

export const SCHEMA = 'invocation';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: INVOCATION_ENTITIES,
    migrations: [CreatePromptTables1763772000000, CreateRequestLedger1763775600000],
    applicationName: 'waggle-invocation',
  });
}
