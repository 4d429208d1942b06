import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/platform';
import { PROMPT_ENTITIES } from '../prompts/entities';
import { CreatePromptTables1763772000000 } from './migrations/1763772000000-create-prompt-tables';

export const SCHEMA = 'invocation';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: PROMPT_ENTITIES,
    migrations: [CreatePromptTables1763772000000],
    applicationName: 'waggle-invocation',
  });
}
