import { Module } from '@nestjs/common';
import { IndexModule } from '../index/index.module';
import { KnowledgeBasesModule } from '../knowledge-bases/knowledge-bases.module';
import { SearchController } from './search.controller';

/** Search of a knowledge base over NATS. ChunkIndex comes from IndexModule. */
@Module({ imports: [IndexModule, KnowledgeBasesModule], controllers: [SearchController] })
export class SearchModule {}
