import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/database';
import { BUDGET_ENTITIES } from '../budgets/entities';
import { EXPERIMENT_ENTITIES } from '../experiments/entities';
import { DATASET_ENTITIES } from '../datasets/entities';
import { CreditEntryEntity } from '../credits/entities/credit-entry.entity';
import { GovernanceVersionEntity } from '../governance-projection/entities/governance-version.entity';
import { LEDGER_ENTITIES } from '../ledger/entities';
import { RateLimitEntity } from '../rate-limits/entities/rate-limit.entity';
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
  ...BUDGET_ENTITIES,
  RateLimitEntity,
  CreditEntryEntity,
  GovernanceVersionEntity,
  ...PROVIDER_CREDENTIAL_ENTITIES,
  ...EXPERIMENT_ENTITIES,
  ...DATASET_ENTITIES,
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
