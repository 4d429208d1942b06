import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { QueueNames, type DeadLetterReplay, type KnowledgeBaseIngestJob } from '@waggle/contracts';
import { QueueDeadLetters, type JobQueue } from '@waggle/platform';
import type { Job } from 'bullmq';
import { KnowledgeBasesRepository } from '../knowledge-bases/knowledge-bases.repository';

/**
 * Dead-lettered ingestions (the `knowledge-base-ingest` failed set). A replay reopens the item
 * (failed → queued) before its job runs again, since the worker leaves a failed item alone; the
 * job keeps its id (the item's), so an ingestion replayed is ingested exactly once.
 */
@Injectable()
export class IngestDeadLetters extends QueueDeadLetters<'knowledge-base-ingest'> {
  constructor(
    private readonly repository: KnowledgeBasesRepository,
    @InjectQueue(QueueNames.knowledgeBaseIngest) queue: JobQueue<'knowledge-base-ingest'>,
  ) {
    super(queue);
  }

  protected override async replayJob(job: Job<KnowledgeBaseIngestJob>): Promise<DeadLetterReplay> {
    const reopened = await this.repository.reopenFailedItem(job.data.item_id);
    try {
      return await this.requeue(job);
    } catch (error) {
      // The job stays dead (no other replay took it meanwhile): so does its item, with the error it had.
      if (reopened && (await job.getState()) === 'failed')
        await this.repository.markItem(job.data.item_id, { runStatus: 'failed', error: reopened.error ?? undefined });
      throw error;
    }
  }
}
