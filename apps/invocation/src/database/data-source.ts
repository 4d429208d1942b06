import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/platform';
import { INVOCATION_ENTITIES } from '../prompts/entities';
import { CreatePromptTables1763772000000 } from './migrations/1763772000000-create-prompt-tables';
import { CreateRequestLedger1763775600000 } from './migrations/1763775600000-create-request-ledger';
import { SealWebhookSecrets1763900000000 } from './migrations/1763900000000-seal-webhook-secrets';

export const SCHEMA = 'invocation';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: INVOCATION_ENTITIES,
    migrations: [CreatePromptTables1763772000000, CreateRequestLedger1763775600000, SealWebhookSecrets1763900000000],
    applicationName: 'waggle-invocation',
  });
}
