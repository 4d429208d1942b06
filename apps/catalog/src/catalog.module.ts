import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { ApiKeysService } from './api-keys/api-keys.service';
import { CATALOG_ENTITIES } from './database/data-source';
import { ModelsController } from './models/models.controller';
import { ModelsService } from './models/models.service';
import { PlansController } from './plans/plans.controller';
import { PlansService } from './plans/plans.service';
import { WorkspacesController } from './workspaces/workspaces.controller';
import { WorkspacesService } from './workspaces/workspaces.service';

/** Plans, workspaces, API keys and the model catalog. */
@Module({
  imports: [TypeOrmModule.forFeature(CATALOG_ENTITIES)],
  controllers: [PlansController, WorkspacesController, ApiKeysController, ModelsController],
  providers: [PlansService, WorkspacesService, ApiKeysService, ModelsService],
})
export class CatalogModule {}
