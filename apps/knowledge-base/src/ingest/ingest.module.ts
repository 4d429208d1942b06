import { Module } from '@nestjs/common';
import { IndexModule } from '../index/index.module';
import { KnowledgeBasesModule } from '../knowledge-bases/knowledge-bases.module';
import { DocumentSource } from './document-source';
import { IngestWorker } from './ingest.worker';

/**
 * Ingestion of knowledge base items (the `knowledge-base-ingest` worker). ChunkIndex comes
 * from IndexModule.
 */
@Module({
  imports: [IndexModule, KnowledgeBasesModule],
  providers: [DocumentSource, IngestWorker],
})
export class IngestModule {}
