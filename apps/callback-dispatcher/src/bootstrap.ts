import type { INestApplication } from '@nestjs/common';
import { loadConfig, startServiceApp } from '@waggle/platform';
import { CallbackDispatcherEnv } from './config/callback-dispatcher.env';
import { dataSourceOptions } from './database/data-source';

export function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(CallbackDispatcherEnv);
  const database = dataSourceOptions(env.DATABASE_URL);
  return startServiceApp({ service: 'callback-dispatcher', env, dependencies: ['postgres', 'nats', 'redis'], database });
}
