import type { INestApplication } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { loadConfig, startServiceApp } from '@waggle/platform';
import { RunLifecycleModule } from '@waggle/runs';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { CatalogEnv } from './config/catalog.env';
import { dataSourceOptions } from './database/data-source';
import { ModelsModule } from './models/models.module';
import { PlansModule } from './plans/plans.module';
import { CreateWorkspaceModule } from './workspaces/usecases/create-workspace/create-workspace.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

export function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(CatalogEnv);
  const database = TypeOrmModule.forRoot(dataSourceOptions(env.DATABASE_URL));
  return startServiceApp({
    service: 'catalog',
    env,
    dependencies: ['postgres', 'nats'],
    database,
    imports: [RunLifecycleModule, PlansModule, WorkspacesModule, ApiKeysModule, CreateWorkspaceModule, ModelsModule],
  });
}
