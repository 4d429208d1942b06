import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { KnowledgeBasesController } from './knowledge-bases.controller';
import { PrivateKnowledgeBaseItemsController, PrivateKnowledgeBasesController } from './private-knowledge-bases.controller';

/** A workspace's knowledge bases (public CRUD, items, search) and the private item (paged list, add, read) and embedding-model routes. */
@Module({
  imports: [AuthModule],
  controllers: [KnowledgeBasesController, PrivateKnowledgeBasesController, PrivateKnowledgeBaseItemsController],
})
export class KnowledgeBasesModule {}
