import { Module } from '@nestjs/common';
import { FileStaging } from '@waggle/platform';
import { IndexModule } from '../index/index.module';
import { KnowledgeBasesModule } from '../knowledge-bases/knowledge-bases.module';
import { DocumentSource } from './document-source';
import { IngestDeadLetters } from './ingest-dead-letters';
import { IngestWorker } from './ingest.worker';

/**
 * Ingestion of knowledge base items (the `knowledge-base-ingest` worker). ChunkIndex comes
 * from IndexModule.
 */
@Module({
  imports: [IndexModule, KnowledgeBasesModule],
  providers: [FileStaging, DocumentSource, IngestWorker, IngestDeadLetters],
  exports: [IngestDeadLetters],
})
export class IngestModule {}
