import type { MigrationInterface } from 'typeorm';
import { CreateChunkIndex1795600000000 } from './1795600000000-create-chunk-index';

/** Every migration of this service, oldest first. `npm run migration:generate` appends here. */
export const MIGRATIONS: Array<new () => MigrationInterface> = [
  CreateChunkIndex1795600000000,
];
