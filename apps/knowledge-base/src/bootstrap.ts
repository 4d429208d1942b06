import type { INestApplication } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { loadConfig, NatsRpcClient, startServiceApp } from '@waggle/platform';
import { RunLifecycleModule } from '@waggle/runs';
import { ProvidersModule } from '@waggle/providers';
import { CleanupModule } from './cleanup/cleanup.module';
import { KnowledgeBaseEnv } from './config/knowledge-base.env';
import { dataSourceOptions } from './database/data-source';
import { IngestDeadLetters } from './ingest/ingest-dead-letters';
import { IngestModule } from './ingest/ingest.module';
import { KnowledgeBasesModule } from './knowledge-bases/knowledge-bases.module';
import { SearchModule } from './search/search.module';

export function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(KnowledgeBaseEnv);
  const database = TypeOrmModule.forRoot(dataSourceOptions(env.DATABASE_URL));
  return startServiceApp({
    service: 'knowledge-base',
    env,
    dependencies: ['postgres', 'nats', 'redis'],
    database,
    imports: [
      RunLifecycleModule,
      ProvidersModule.forRoot({ env, catalogTransport: NatsRpcClient }),
      KnowledgeBasesModule,
      IngestModule,
      CleanupModule,
      SearchModule,
    ],
    deadLetters: { queues: ['knowledge-base-cleanup'], sources: [IngestDeadLetters] },
  });
}
