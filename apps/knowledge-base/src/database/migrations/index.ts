import type { MigrationInterface } from 'typeorm';
import { CreateKnowledgeBases1795452764254 } from './1795452764254-create-knowledge-bases';
import { CreateChunkIndex1795600000000 } from './1795600000000-create-chunk-index';

/** Every migration of this service, oldest first. `npm run migration:generate` appends here. */
export const MIGRATIONS: Array<new () => MigrationInterface> = [CreateKnowledgeBases1795452764254, CreateChunkIndex1795600000000];
