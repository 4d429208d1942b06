import type { INestApplication } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { loadConfig, startServiceApp } from '@waggle/platform';
import { RunLifecycleModule } from '@waggle/runs';
import { AssetsModule } from './assets/assets.module';
import { AssetEnv } from './config/asset.env';
import { dataSourceOptions } from './database/data-source';

export function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(AssetEnv);
  const database = TypeOrmModule.forRoot(dataSourceOptions(env.DATABASE_URL));
  return startServiceApp({
    service: 'asset',
    env,
    dependencies: ['postgres', 'nats'],
    database,
    imports: [RunLifecycleModule, AssetsModule],
  });
}
