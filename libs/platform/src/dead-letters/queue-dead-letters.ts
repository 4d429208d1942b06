import {
  DEAD_LETTER_PREVIEW_CHARS,
  type DeadLetterReplay,
  type DeadLetterSummary,
  type QueueJobs,
  type QueueName,
} from '@waggle/contracts';
import type { Job, Queue } from 'bullmq';
import { countDeadLettersWith } from '../queues/queue-metrics';
import type { JobQueue } from '../queues/queue-producer';
import { cutText, jsonText } from '../reliability/json-text';
import { deadLetterNotFound, type DeadLetterSource } from './dead-letter-source';

/** A scrape counts at most this many failed jobs one by one (stillDead); a larger failed set is reported as this many at least. */
const DEAD_LETTER_COUNT_LIMIT = 1_000;

/**
 * A queue's dead letters: its failed set, where BullMQ leaves a job that failed on its last
 * attempt (kept 30 days, see JOB_RETENTION). A replay moves the job back to the queue under the
 * same id with a fresh attempt budget, so it runs exactly once more: a second replay of the same
 * job finds it no longer failed, and the workers' own idempotency (job id = the work's id) does
 * the rest. An owner with its own rules (which failed jobs still are dead letters, how a replay
 * runs) extends it, on the queue `@InjectQueue` gives it.
 */
export class QueueDeadLetters<Q extends QueueName> implements DeadLetterSource {
  readonly source: Q;
  private readonly queue: Queue;
  private readonly stopCounting: () => void;

  /** The queue's prefix (the callback-dispatcher's tests use their own) is the one it was registered with. */
  constructor(queue: JobQueue<Q>) {
    this.source = queue.name;
    this.queue = queue as Queue;
    this.stopCounting = countDeadLettersWith(queue.name, () => this.count());
  }

  /** Attempts as the owner counts them (default: the attempts BullMQ counted, outage re-runs not included). */
  protected attemptsOf(job: Job<QueueJobs[Q]>): number {
    return job.attemptsMade;
  }

  /** Keeps the failed jobs that still are dead letters (a callback redelivered under a new job is not). */
  protected stillDead(jobs: Array<Job<QueueJobs[Q]>>): Promise<Array<Job<QueueJobs[Q]>>> {
    return Promise.resolve(jobs);
  }

  /** Replays another way than (or around) running the job again; by default the failed job goes back to the queue with a fresh attempt budget. */
  protected replayJob(job: Job<QueueJobs[Q]>): Promise<DeadLetterReplay> {
    return this.requeue(job);
  }

  /** How many dead letters `list` would show: the failed set, less what `stillDead` drops. */
  async count(): Promise<number> {
    if (this.stillDead === QueueDeadLetters.prototype.stillDead) return this.queue.getFailedCount();
    return (await this.stillDead(await this.failed(DEAD_LETTER_COUNT_LIMIT))).length;
  }

  async list(limit: number): Promise<DeadLetterSummary[]> {
    const dead = await this.stillDead(await this.failed(limit));
    return dead.map((job) => this.summary(job));
  }

  async replay(id: string): Promise<DeadLetterReplay> {
    const job = (await this.queue.getJob(id)) as Job<QueueJobs[Q]> | undefined;
    if (!job || (await job.getState()) !== 'failed') throw deadLetterNotFound(this.source, id);
    if ((await this.stillDead([job])).length === 0) throw deadLetterNotFound(this.source, id);
    return this.replayJob(job);
  }

  /** The queue itself is closed by BullModule with the app. */
  close(): Promise<void> {
    this.stopCounting();
    return Promise.resolve();
  }

  private async failed(limit: number): Promise<Array<Job<QueueJobs[Q]>>> {
    return ((await this.queue.getFailed(0, limit - 1)) as Array<Job<QueueJobs[Q]> | undefined>).filter(
      (job): job is Job<QueueJobs[Q]> => job !== undefined,
    );
  }

  /** The failed job back to the queue under the same id, with a fresh attempt budget. */
  protected async requeue(job: Job<QueueJobs[Q]>): Promise<DeadLetterReplay> {
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
      attempts: this.attemptsOf(job),
      dead_lettered_at: new Date(job.finishedOn ?? job.timestamp).toISOString(),
      payload: cutText(jsonText(job.data), DEAD_LETTER_PREVIEW_CHARS),
    };
  }
}
