import type { MigrationInterface } from 'typeorm';
import { CreateCatalogTables1763769600000 } from './1763769600000-create-catalog-tables';

/** Every migration of this service, oldest first. `npm run migration:generate` appends here. */
export const MIGRATIONS: Array<new () => MigrationInterface> = [
  CreateCatalogTables1763769600000,
];
