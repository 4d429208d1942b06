import { Module } from '@nestjs/common';
import { KnowledgeBasesModule } from '../knowledge-bases/knowledge-bases.module';
import { CleanupWorker } from './cleanup.worker';

/** Removal of deleted knowledge bases' contents (the `knowledge-base-cleanup` worker). ChunkIndex comes from the app's IndexModule. */
@Module({ imports: [KnowledgeBasesModule], providers: [CleanupWorker] })
export class CleanupModule {}
