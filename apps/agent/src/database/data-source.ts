import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/database';
import { AGENT_ENTITIES } from '../agents/entities';
import { MCP_SERVER_ENTITIES } from '../mcp-servers/entities';
import { THREAD_ENTITIES } from '../threads/entities';
import { MIGRATIONS } from './migrations';

export const SCHEMA = 'agent';

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: [...AGENT_ENTITIES, ...THREAD_ENTITIES, ...MCP_SERVER_ENTITIES],
    migrations: MIGRATIONS,
    applicationName: 'waggle-agent',
  });
}
