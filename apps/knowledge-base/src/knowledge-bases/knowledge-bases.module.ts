import { Module } from '@nestjs/common';
import { KNOWLEDGE_BASE_QUEUES } from './knowledge-base-queues';
import { KnowledgeBasesController } from './knowledge-bases.controller';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';
import { KnowledgeBasesService } from './knowledge-bases.service';
import { WorkspaceSettingsRepository } from './workspace-settings.repository';

/** Knowledge bases and their items over NATS, the workspace's embedding model setting, and the queues of both workers. */
@Module({
  imports: [KNOWLEDGE_BASE_QUEUES],
  controllers: [KnowledgeBasesController],
  providers: [KnowledgeBasesRepository, WorkspaceSettingsRepository, KnowledgeBasesService],
  exports: [KnowledgeBasesRepository, KnowledgeBasesService, KNOWLEDGE_BASE_QUEUES],
})
export class KnowledgeBasesModule {}
