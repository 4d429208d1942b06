import { Inject, Injectable } from '@nestjs/common';
import { QueueNames, type KnowledgeBaseCleanupJob } from '@waggle/contracts';
import { APP_ENV, QueueProcessor, QueueWorker, type RequestContextStore } from '@waggle/platform';
import type { Job } from 'bullmq';
import type { KnowledgeBaseEnv } from '../config/knowledge-base.env';
import { ChunkIndex } from '../index/chunk-index';
import { KnowledgeBasesRepository } from '../knowledge-bases/knowledge-bases.repository';

/**
 * Removes what a deleted knowledge base held (queue `knowledge-base-cleanup`, job id = its
 * id): its chunks with their postings and vectors, a batch per short transaction, then its
 * items in batches, then its row. Each step only deletes, so a cleanup that dies part-way
 * (its job stalls and runs again, or the next start re-queues it) simply goes on.
 */
@Injectable()
@QueueProcessor(QueueNames.knowledgeBaseCleanup)
export class CleanupWorker extends QueueWorker<'knowledge-base-cleanup'> {
  constructor(
    private readonly repository: KnowledgeBasesRepository,
    private readonly index: ChunkIndex,
    @Inject(APP_ENV) private readonly env: KnowledgeBaseEnv,
  ) {
    super({
      queue: QueueNames.knowledgeBaseCleanup,
      redisUrl: env.REDIS_URL,
      concurrency: 1,
      lockMs: env.KB_JOB_LOCK_MS,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    });
  }

  protected contextOf(): RequestContextStore {
    return {};
  }

  protected async handle(job: Job<KnowledgeBaseCleanupJob>): Promise<void> {
    const knowledgeBaseId = job.data.knowledge_base_id;
    // Only a knowledge base marked deleted is ever cleaned up.
    if (!(await this.repository.isMarkedDeleted(knowledgeBaseId))) return;
    const started = performance.now();
    const batch = this.env.KB_CLEANUP_BATCH_SIZE;
    let chunks = 0;
    for (
      let removed = await this.index.removeChunks(knowledgeBaseId, batch);
      removed > 0;
      removed = await this.index.removeChunks(knowledgeBaseId, batch)
    ) {
      chunks += removed;
      await job.updateProgress({ chunks });
    }
    let items = 0;
    for (
      let removed = await this.repository.deleteItems(knowledgeBaseId, batch);
      removed > 0;
      removed = await this.repository.deleteItems(knowledgeBaseId, batch)
    )
      items += removed;
    await this.repository.deleteMarked(knowledgeBaseId);
    this.logger.log({
      msg: 'deleted knowledge base cleaned up',
      knowledge_base_id: knowledgeBaseId,
      chunks,
      items,
      duration_ms: Math.round(performance.now() - started),
    });
  }
}
