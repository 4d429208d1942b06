import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/database';
import { LEDGER_ENTITIES } from '../ledger/entities';
import { PROMPT_ENTITIES } from '../prompts/entities';
import { PROVIDER_CREDENTIAL_ENTITIES } from '../provider-credentials/entities';
import { WORKFLOW_DEPLOYMENT_ENTITIES } from '../workflows/deployments/entities';
import { WORKFLOW_RUN_ENTITIES } from '../workflows/runs/entities';
import { MIGRATIONS } from './migrations';

export const SCHEMA = 'invocation';

/** Every table of the invocation schema. */
export const INVOCATION_ENTITIES = [
  ...PROMPT_ENTITIES,
  ...LEDGER_ENTITIES,
  ...WORKFLOW_DEPLOYMENT_ENTITIES,
  ...WORKFLOW_RUN_ENTITIES,
  ...PROVIDER_CREDENTIAL_ENTITIES,
];

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: INVOCATION_ENTITIES,
    migrations: MIGRATIONS,
    applicationName: 'waggle-invocation',
  });
}
