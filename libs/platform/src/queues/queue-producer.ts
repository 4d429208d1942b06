import type { QueueJobs, QueueName } from '@waggle/contracts';
import { Queue, type JobsOptions } from 'bullmq';
import type Redis from 'ioredis';
import { queueTelemetry } from './queue-worker';

/**
 * Finished jobs are kept a while (a second enqueue of a finished job id is then a no-op in
 * BullMQ too), failed ones a month: BullMQ's failed set is the dead-letter queue.
 */
export const JOB_RETENTION = {
  removeOnComplete: { age: 24 * 3600, count: 50_000 },
  removeOnFail: { age: 30 * 24 * 3600 },
} as const satisfies JobsOptions;

/**
 * Each queue's job options, so a job is retried the same way whoever enqueues it. Callbacks
 * schedule their own retries (see the dispatcher); an accepted prompt or agent trigger whose run hit
 * an outage (database, Redis, a crash) is run again with backoff.
 */
const JOB_OPTIONS: { readonly [Q in QueueName]: { name: string; options: JobsOptions } } = {
  callbacks: { name: 'deliver', options: JOB_RETENTION },
  'prompt-runs': { name: 'run', options: { ...JOB_RETENTION, attempts: 8, backoff: { type: 'exponential', delay: 1000 } } },
  'agent-runs': { name: 'run', options: { ...JOB_RETENTION, attempts: 8, backoff: { type: 'exponential', delay: 1000 } } },
  // An item whose ingestion hit an outage (embedding provider, database) is tried again; a
  // document that cannot be parsed is failed by the worker at once, without retries.
  'knowledge-base-ingest': { name: 'ingest', options: { ...JOB_RETENTION, attempts: 5, backoff: { type: 'exponential', delay: 2000 } } },
  // Cleanup resumes where it stopped, so it is retried until it finishes.
  'knowledge-base-cleanup': { name: 'cleanup', options: { ...JOB_RETENTION, attempts: 20, backoff: { type: 'exponential', delay: 1000 } } },
  // A run whose job hit an outage is taken again; finished steps are not repeated (their records
  // hold their results), and a run that stays unfinished is failed by the reaper.
  'workflow-runs': { name: 'run', options: { ...JOB_RETENTION, attempts: 5, backoff: { type: 'exponential', delay: 1000 } } },
};

/** Adds jobs to one queue, typed by the queue's job, carrying the caller's trace to the worker. */
export class QueueProducer<Q extends QueueName> {
  private readonly queue: Queue<QueueJobs[Q]>;
  private readonly jobOptions: JobsOptions;

  /** `jobOptions` overrides the queue's retry settings (attempts, backoff) where an app makes them configurable. */
  constructor(
    private readonly name: Q,
    connection: Redis,
    options: { prefix?: string; jobOptions?: Pick<JobsOptions, 'attempts' | 'backoff'> } = {},
  ) {
    this.queue = new Queue<QueueJobs[Q]>(name, {
      connection,
      telemetry: queueTelemetry(),
      ...(options.prefix && { prefix: options.prefix }),
    });
    this.jobOptions = { ...JOB_OPTIONS[name].options, ...options.jobOptions };
  }

  /** Idempotent: the job id names the work (a request, a delivery), so adding it twice makes one job. */
  async add(jobId: string, data: QueueJobs[Q]): Promise<void> {
    // BullMQ's own generic constraints cannot see that QueueJobs[Q] is the queue's data type.
    await (this.queue as Queue).add(JOB_OPTIONS[this.name].name, data, { ...this.jobOptions, jobId });
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
