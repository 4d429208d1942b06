import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { KNOWLEDGE_BASE_ENTITIES } from './entities';
import { KnowledgeBasesController } from './knowledge-bases.controller';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';
import { KnowledgeBasesService } from './knowledge-bases.service';

import { KNOWLEDGE_BASE_QUEUES } from './knowledge-base-queues';

/** Knowledge bases and their items over NATS, the workspace's embedding model setting, and the queues of both workers. */
@Module({
  imports: [TypeOrmModule.forFeature(KNOWLEDGE_BASE_ENTITIES), KNOWLEDGE_BASE_QUEUES],
  controllers: [KnowledgeBasesController],
  providers: [KnowledgeBasesRepository, KnowledgeBasesService],
  exports: [KnowledgeBasesRepository, KnowledgeBasesService, KNOWLEDGE_BASE_QUEUES],
})
export class KnowledgeBasesModule {}
