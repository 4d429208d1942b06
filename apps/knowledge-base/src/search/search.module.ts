import { Module } from '@nestjs/common';
import { KnowledgeBasesModule } from '../knowledge-bases/knowledge-bases.module';
import { SearchController } from './search.controller';

/** Search of a knowledge base over NATS. ChunkIndex comes from the app's IndexModule. */
@Module({ imports: [KnowledgeBasesModule], controllers: [SearchController] })
export class SearchModule {}
