import {
  DEAD_LETTER_PREVIEW_CHARS,
  type DeadLetterReplay,
  type DeadLetterSummary,
  type QueueJobs,
  type QueueName,
} from '@waggle/contracts';
import { Queue, type Job } from 'bullmq';
import type Redis from 'ioredis';
import { countDeadLettersWith } from '../queues/queue-metrics';
import { cutText, jsonText } from '../reliability/json-text';
import { deadLetterNotFound, type DeadLetterSource } from './dead-letter-source';

export interface QueueDeadLetterOptions<Q extends QueueName> {
  /** BullMQ key prefix (the callback-dispatcher's tests use their own). */
  prefix?: string;
  /** Attempts as the owner counts them (default: the attempts BullMQ counted, outage re-runs not included). */
  attemptsOf?(job: Job<QueueJobs[Q]>): number;
  /** Keeps the failed jobs that still are dead letters (a callback redelivered under a new job is not). */
  stillDead?(jobs: Array<Job<QueueJobs[Q]>>): Promise<Array<Job<QueueJobs[Q]>>>;
  /**
   * Replays another way than (or around) running the job again; `requeue` is the default: the
   * failed job back to the queue with a fresh attempt budget.
   */
  replay?(job: Job<QueueJobs[Q]>, requeue: () => Promise<DeadLetterReplay>): Promise<DeadLetterReplay>;
}

/**
 * A queue's dead letters: its failed set, where BullMQ leaves a job that failed on its last
 * attempt (kept 30 days, see JOB_RETENTION). A replay moves the job back to the queue under the
 * same id with a fresh attempt budget, so it runs exactly once more: a second replay of the same
 * job finds it no longer failed, and the workers' own idempotency (job id = the work's id) does
 * the rest.
 */
/** A scrape counts at most this many failed jobs one by one (stillDead); a larger failed set is reported as this many at least. */
const DEAD_LETTER_COUNT_LIMIT = 1_000;

export class QueueDeadLetters<Q extends QueueName> implements DeadLetterSource {
  private readonly queue: Queue;
  private readonly stopCounting: () => void;

  constructor(
    readonly source: Q,
    connection: Redis,
    private readonly options: QueueDeadLetterOptions<Q> = {},
  ) {
    this.queue = new Queue(source, { connection, ...(options.prefix && { prefix: options.prefix }) });
    this.stopCounting = countDeadLettersWith(source, () => this.count());
  }

  /** How many dead letters `list` would show: the failed set, less what `stillDead` drops. */
  async count(): Promise<number> {
    const stillDead = this.options.stillDead;
    if (!stillDead) return this.queue.getFailedCount();
    const failed = ((await this.queue.getFailed(0, DEAD_LETTER_COUNT_LIMIT - 1)) as Array<Job<QueueJobs[Q]> | undefined>).filter(
      (job): job is Job<QueueJobs[Q]> => job !== undefined,
    );
    return (await stillDead(failed)).length;
  }

  async list(limit: number): Promise<DeadLetterSummary[]> {
    const failed = ((await this.queue.getFailed(0, limit - 1)) as Array<Job<QueueJobs[Q]> | undefined>).filter(
      (job): job is Job<QueueJobs[Q]> => job !== undefined,
    );
    const dead = this.options.stillDead ? await this.options.stillDead(failed) : failed;
    return dead.map((job) => this.summary(job));
  }

  async replay(id: string): Promise<DeadLetterReplay> {
    const job = (await this.queue.getJob(id)) as Job<QueueJobs[Q]> | undefined;
    if (!job || (await job.getState()) !== 'failed') throw deadLetterNotFound(this.source, id);
    if (this.options.stillDead && (await this.options.stillDead([job])).length === 0) throw deadLetterNotFound(this.source, id);
    const requeue = () => this.requeue(job);
    return this.options.replay ? this.options.replay(job, requeue) : requeue();
  }

  close(): Promise<void> {
    this.stopCounting();
    return this.queue.close();
  }

  private async requeue(job: Job<QueueJobs[Q]>): Promise<DeadLetterReplay> {
    const id = String(job.id);
    try {
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    } catch (error) {
      // Another replay took it first.
      if ((await job.getState()) !== 'failed') throw deadLetterNotFound(this.source, id);
      throw error;
    }
    return { source: this.source, id, outcome: 'requeued', error: null };
  }

  private summary(job: Job<QueueJobs[Q]>): DeadLetterSummary {
    const data = (job.data ?? {}) as { request_id?: unknown; workspace_id?: unknown };
    return {
      source: this.source,
      id: String(job.id),
      request_id: typeof data.request_id === 'string' ? data.request_id : null,
      workspace_id: typeof data.workspace_id === 'string' ? data.workspace_id : null,
      error: cutText(job.failedReason ?? '', DEAD_LETTER_PREVIEW_CHARS),
      attempts: this.options.attemptsOf ? this.options.attemptsOf(job) : job.attemptsMade,
      dead_lettered_at: new Date(job.finishedOn ?? job.timestamp).toISOString(),
      payload: cutText(jsonText(job.data), DEAD_LETTER_PREVIEW_CHARS),
    };
  }
}
