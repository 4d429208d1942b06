import type { INestApplication } from '@nestjs/common';
import { loadConfig, startServiceApp } from '@waggle/platform';
import { KnowledgeBaseEnv } from './config/knowledge-base.env';
import { dataSourceOptions } from './database/data-source';
import { KnowledgeBasesModule } from './knowledge-bases/knowledge-bases.module';

export function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(KnowledgeBaseEnv);
  const database = dataSourceOptions(env.DATABASE_URL);
  return startServiceApp({ service: 'knowledge-base', env, dependencies: ['postgres', 'nats', 'redis'], database, imports: [KnowledgeBasesModule] });
}
