import { BullModule } from '@nestjs/bullmq';
import type { DynamicModule } from '@nestjs/common';
import type { QueueJobs, QueueName } from '@waggle/contracts';
import type { JobsOptions, Queue } from 'bullmq';
import type Redis from 'ioredis';
import { APP_ENV } from '../app/platform.module';
import { GroupCommit } from '../database/group-commit';
import { REDIS_CLIENT } from '../health/indicators';
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
 * Each queue's job name and options (its registered `defaultJobOptions`), so a job is retried
 * the same way whoever enqueues it. Callbacks schedule their own retries (see the dispatcher);
 * an accepted prompt or agent trigger whose run hit an outage (database, Redis, a crash) is run
 * again with backoff.
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
  // A cell is written once (only while pending), so a cell whose job hit a fault is simply run again.
  'experiment-cells': { name: 'cell', options: { ...JOB_RETENTION, attempts: 5, backoff: { type: 'exponential', delay: 1000 } } },
};

/** A queue as `@InjectQueue` gives it, typed by its job. */
export type JobQueue<Q extends QueueName> = Queue<QueueJobs[Q]> & { readonly name: Q };

/** Retry settings an app makes configurable, from its validated env. */
export type JobRetryOverrides = (env: never) => Pick<JobsOptions, 'attempts' | 'backoff'>;

export interface QueueRootOptions {
  /** BullMQ key prefix (tests isolate their queues with one); BullMQ's default otherwise. */
  prefix?: string;
}

/**
 * BullMQ's root configuration (`BullModule.forRootAsync`): every queue of the app on its
 * Redis client (commands fail fast while Redis is away, so a caller hears of an outage), with
 * the producer's trace stored on each job (`telemetry`) and the app's key prefix.
 */
export function queueRootModule(options: QueueRootOptions = {}): DynamicModule {
  return BullModule.forRootAsync({
    useFactory: (redis: Redis | null) => {
      if (!redis) throw new Error('Queues need the app to depend on Redis');
      return { connection: redis, telemetry: queueTelemetry(), ...(options.prefix && { prefix: options.prefix }) };
    },
    inject: [REDIS_CLIENT],
  });
}

/**
 * `BullModule.registerQueue` for the queues a module produces to or consumes, each with its
 * job options; `overrides` takes a queue's retry settings from the app's env.
 */
export function registerQueues(queues: QueueName[], overrides: { readonly [Q in QueueName]?: JobRetryOverrides } = {}): DynamicModule {
  return BullModule.registerQueueAsync(
    ...queues.map((name) => ({
      name,
      useFactory: (env: unknown) => ({ defaultJobOptions: { ...JOB_OPTIONS[name].options, ...overrides[name]?.(env as never) } }),
      inject: [APP_ENV],
    })),
  );
}

/**
 * Idempotent: the job id names the work (a request, a delivery), so adding it twice makes one job.
 * `delayMs`: the job waits that long before a worker may take it.
 */
export async function enqueue<Q extends QueueName>(
  queue: JobQueue<Q>,
  jobId: string,
  data: QueueJobs[Q],
  options: { delayMs?: number } = {},
): Promise<void> {
  // BullMQ's own generic constraints cannot see that QueueJobs[Q] is the queue's data type.
  await (queue as Queue).add(JOB_OPTIONS[queue.name].name, data, { jobId, ...(options.delayMs && { delay: options.delayMs }) });
}

/**
 * Many jobs in one round trip (BullMQ's `addBulk`, atomic in Redis), each idempotent by its id
 * as in `enqueue` (and waiting `delayMs` when given): either every job is queued or the call throws.
 */
export async function enqueueBulk<Q extends QueueName>(
  queue: JobQueue<Q>,
  jobs: ReadonlyArray<{ jobId: string; data: QueueJobs[Q]; delayMs?: number }>,
): Promise<void> {
  const name = JOB_OPTIONS[queue.name].name;
  await (queue as Queue).addBulk(
    jobs.map(({ jobId, data, delayMs }) => ({ name, data, opts: { jobId, ...(delayMs && { delay: delayMs }) } })),
  );
}

/** A job to queue through a BatchedEnqueue. */
interface BatchedJob<Q extends QueueName> {
  jobId: string;
  data: QueueJobs[Q];
  delayMs?: number;
}

/**
 * `enqueue` for a queue many concurrent callers add to: jobs added while a bulk add is under way
 * leave together in the next one (see GroupCommit), so under load Redis is woken once per batch
 * instead of once per job; when idle, a job goes out at once, alone. Each caller still waits for
 * its own job to be stored, and a failed batch is tried job by job (one failure fails one caller).
 */
export class BatchedEnqueue<Q extends QueueName> {
  private readonly batches: GroupCommit<BatchedJob<Q>, true>;

  constructor(queue: JobQueue<Q>, options: { maxBatch: number; maxInFlight: number } = { maxBatch: 100, maxInFlight: 2 }) {
    this.batches = new GroupCommit<BatchedJob<Q>, true>({
      run: async (jobs) => {
        if (jobs.length === 1) {
          const [job] = jobs as [BatchedJob<Q>];
          await enqueue(queue, job.jobId, job.data, { delayMs: job.delayMs });
        } else await enqueueBulk(queue, jobs);
        return jobs.map(() => true as const);
      },
      keyOf: (job) => job.jobId,
      ...options,
    });
  }

  /** As `enqueue`: the job is stored (or already was) when this resolves. */
  async add(jobId: string, data: QueueJobs[Q], options: { delayMs?: number } = {}): Promise<void> {
    await this.batches.submit({ jobId, data, delayMs: options.delayMs });
  }
}
