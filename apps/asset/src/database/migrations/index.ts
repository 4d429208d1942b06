import type { MigrationInterface } from 'typeorm';
import { CreateAssets1795452767393 } from './1795452767393-create-assets';

/** Every migration of this service, oldest first. `npm run migration:generate` appends here. */
export const MIGRATIONS: Array<new () => MigrationInterface> = [CreateAssets1795452767393];
