import type { INestApplication } from '@nestjs/common';
import { loadConfig, startServiceApp } from '@waggle/platform';
import { AgentEnv } from './config/agent.env';
import { dataSourceOptions } from './database/data-source';

export function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(AgentEnv);
  const database = dataSourceOptions(env.DATABASE_URL);
  return startServiceApp({ service: 'agent', env, dependencies: ['postgres', 'nats', 'redis'], database });
}
