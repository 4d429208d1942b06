import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/database';
import { ApiKeyEntity } from '../api-keys/entities/api-key.entity';
import { CatalogVersionEntity } from '../models/entities/catalog-version.entity';
import { ModelPriceOverrideEntity } from '../models/entities/model-price-override.entity';
import { ModelEntity } from '../models/entities/model.entity';
import { PlanEntity } from '../plans/entities/plan.entity';
import { WorkspaceEntity } from '../workspaces/entities/workspace.entity';
import { MIGRATIONS } from './migrations';

export const SCHEMA = 'catalog';

export const CATALOG_ENTITIES = [PlanEntity, WorkspaceEntity, ApiKeyEntity, ModelEntity, CatalogVersionEntity, ModelPriceOverrideEntity];

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: CATALOG_ENTITIES,
    migrations: MIGRATIONS,
    applicationName: 'waggle-catalog',
  });
}
