import { serviceDataSourceOptions, type PostgresDataSourceOptions } from '@waggle/platform';
import { ApiKeyEntity } from '../api-keys/api-key.entity';
import { CreateCatalogTables1763769600000 } from './migrations/1763769600000-create-catalog-tables';
import { CatalogVersionEntity } from '../models/catalog-version.entity';
import { ModelEntity } from '../models/model.entity';
import { PlanEntity } from '../plans/plan.entity';
import { WorkspaceEntity } from '../workspaces/workspace.entity';

export const SCHEMA = 'catalog';

export const CATALOG_ENTITIES = [PlanEntity, WorkspaceEntity, ApiKeyEntity, ModelEntity, CatalogVersionEntity];

/** Shared by the app and the migrate command. */
export function dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions {
  return serviceDataSourceOptions({
    schema: SCHEMA,
    databaseUrl,
    entities: CATALOG_ENTITIES,
    migrations: [CreateCatalogTables1763769600000],
    applicationName: 'waggle-catalog',
  });
}
