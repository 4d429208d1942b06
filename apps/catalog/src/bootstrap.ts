import type { INestApplication } from '@nestjs/common';
import { loadConfig, startServiceApp } from '@waggle/platform';
import { CatalogModule } from './catalog.module';
import { CatalogEnv } from './config/catalog.env';
import { dataSourceOptions } from './database/data-source';

export function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(CatalogEnv);
  const database = dataSourceOptions(env.DATABASE_URL);
  return startServiceApp({ service: 'catalog', env, dependencies: ['postgres', 'nats'], database, imports: [CatalogModule] });
}
