import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { QueueNames, type DeadLetterReplay, type DeadLetterSummary } from '@waggle/contracts';
import { QueueDeadLetters, REDIS_CLIENT, type DeadLetterSource } from '@waggle/platform';
import type Redis from 'ioredis';
import { KnowledgeBasesRepository } from '../knowledge-bases/knowledge-bases.repository';

/**
 * Dead-lettered ingestions (the `knowledge-base-ingest` failed set). A replay reopens the item
 * (failed → queued) before its job runs again, since the worker leaves a failed item alone; the
 * job keeps its id (the item's), so an ingestion replayed is ingested exactly once.
 */
@Injectable()
export class IngestDeadLetters implements DeadLetterSource, OnApplicationShutdown {
  readonly source = QueueNames.knowledgeBaseIngest;
  private readonly failed: QueueDeadLetters<'knowledge-base-ingest'>;

  constructor(
    private readonly repository: KnowledgeBasesRepository,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.failed = new QueueDeadLetters(QueueNames.knowledgeBaseIngest, redis, {
      replay: async (job, requeue) => {
        const reopened = await this.repository.reopenFailedItem(job.data.item_id);
        try {
          return await requeue();
        } catch (error) {
          // The job stays dead (no other replay took it meanwhile): so does its item, with the error it had.
          if (reopened && (await job.getState()) === 'failed')
            await this.repository.markItem(job.data.item_id, { runStatus: 'failed', error: reopened.error ?? undefined });
          throw error;
        }
      },
    });
  }

  list(limit: number): Promise<DeadLetterSummary[]> {
    return this.failed.list(limit);
  }

  replay(id: string): Promise<DeadLetterReplay> {
    return this.failed.replay(id);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.failed.close();
  }
}
