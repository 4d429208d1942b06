import { Module } from '@nestjs/common';
import { KnowledgeBasesModule } from '../knowledge-bases/knowledge-bases.module';
import { DocumentSource } from './document-source';
import { IngestWorker } from './ingest.worker';

/**
 * Ingestion of knowledge base items (the `knowledge-base-ingest` worker). ChunkIndex comes
 * from the app's IndexModule.
 */
@Module({
  imports: [KnowledgeBasesModule],
  providers: [DocumentSource, IngestWorker],
})
export class IngestModule {}
