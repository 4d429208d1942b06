import type { MigrationInterface } from 'typeorm';
import { CreateDeliveryLog1763784000000 } from './1763784000000-create-delivery-log';

/** Every migration of this service, oldest first. `npm run migration:generate` appends here. */
export const MIGRATIONS: Array<new () => MigrationInterface> = [CreateDeliveryLog1763784000000];
