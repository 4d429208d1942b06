import { Module } from '@nestjs/common';
import { IndexModule } from '../index/index.module';
import { KnowledgeBasesModule } from '../knowledge-bases/knowledge-bases.module';
import { CleanupWorker } from './cleanup.worker';

/** Removal of deleted knowledge bases' contents (the `knowledge-base-cleanup` worker). ChunkIndex comes from IndexModule. */
@Module({ imports: [IndexModule, KnowledgeBasesModule], providers: [CleanupWorker] })
export class CleanupModule {}
