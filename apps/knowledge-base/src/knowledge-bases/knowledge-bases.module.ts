import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { KNOWLEDGE_BASE_ENTITIES } from './entities';
import { KnowledgeBasesController } from './knowledge-bases.controller';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';
import { KnowledgeBasesService } from './knowledge-bases.service';

/** Knowledge bases and their items over NATS, and the workspace's embedding model setting. */
@Module({
  imports: [TypeOrmModule.forFeature(KNOWLEDGE_BASE_ENTITIES)],
  controllers: [KnowledgeBasesController],
  providers: [KnowledgeBasesRepository, KnowledgeBasesService],
  exports: [KnowledgeBasesRepository, KnowledgeBasesService],
})
export class KnowledgeBasesModule {}
