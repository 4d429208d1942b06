import { QueueNames, type CallbackDeliveryJob, type PromptTriggerJob } from '@waggle/contracts';
import { Queue, type JobsOptions } from 'bullmq';
import type Redis from 'ioredis';

/** `webhook-id` of a request's callback: one result, one delivery, whoever enqueues it and however often. */
export function deliveryIdFor(requestId: string): string {
  return `msg_${requestId.replace(/^req_/, '')}`;
}

/**
 * Finished jobs are kept a while for inspection, failed ones longer: BullMQ's failed set
 * is the dead-letter queue, and the delivery log in PostgreSQL is the lasting record.
 */
const RETENTION: JobsOptions = {
  removeOnComplete: { age: 24 * 3600, count: 50_000 },
  removeOnFail: { age: 30 * 24 * 3600 },
};

/** Hands terminal results to the callback-dispatcher, the only process that sends them. */
export class CallbackQueue {
  private readonly queue: Queue<CallbackDeliveryJob>;

  constructor(connection: Redis) {
    this.queue = new Queue<CallbackDeliveryJob>(QueueNames.callbacks, { connection });
  }

  /** Idempotent: the job id is the delivery id, so a second enqueue of the same result is a no-op. */
  async enqueue(job: CallbackDeliveryJob): Promise<void> {
    await this.queue.add('deliver', job, { ...RETENTION, jobId: job.delivery_id });
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/**
 * Accepted prompt triggers. A job that throws (a database or Redis outage, a crash) is
 * retried; a run that reached its provider records its result before its callback is
 * queued, so a retry never calls the model again.
 */
export const PROMPT_TRIGGER_JOB_OPTIONS: JobsOptions = {
  ...RETENTION,
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
};

export class PromptTriggerQueue {
  readonly queue: Queue<PromptTriggerJob>;

  constructor(connection: Redis) {
    this.queue = new Queue<PromptTriggerJob>(QueueNames.promptRuns, { connection });
  }

  async enqueue(job: PromptTriggerJob): Promise<void> {
    await this.queue.add('run', job, { ...PROMPT_TRIGGER_JOB_OPTIONS, jobId: job.request_id });
  }

  /** A trigger accepted but not yet picked up by a worker. */
  async pending(requestId: string): Promise<PromptTriggerJob | null> {
    const job = await this.queue.getJob(requestId);
    return job?.data ?? null;
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
