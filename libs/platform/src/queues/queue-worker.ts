import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { QueueJobs, QueueName } from '@waggle/contracts';
import { DelayedError, Queue, type Job, type Worker, type WorkerOptions } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import Redis from 'ioredis';
import { requestContext, type RequestContextStore } from '../context/request-context';
import { describeFailure, isTransientFailure } from '../reliability/failure-kind';
import { cappedBackoffMs, OutageLog, type BackoffSettings } from '../reliability/outage-log';
import { observeQueue } from './queue-metrics';

/** How a job that hit an outage waits before it runs again: from 1 s, doubling, at most a minute. */
const QUEUE_OUTAGE_BACKOFF: BackoffSettings = { baseMs: 1_000, maxMs: 60_000 };

/** BullMQ's trace propagation: producers store the caller's trace context on the job, workers continue it. */
export function queueTelemetry(): BullMQOtel {
  return new BullMQOtel({ tracerName: 'waggle.queues' });
}

/** A worker's own options: what its queue always needs (retention of finished jobs, how often a job may stall…). */
export type StaticWorkerOptions = Omit<
  Partial<WorkerOptions>,
  'connection' | 'concurrency' | 'lockDuration' | 'stalledInterval' | 'prefix' | 'telemetry' | 'autorun'
>;

/** What every queue worker runs with, from its app's validated configuration. */
export interface QueueWorkerSettings<Q extends QueueName> {
  queue: Q;
  redisUrl: string;
  /** Jobs this replica runs at once. */
  concurrency: number;
  /**
   * How long a job is held without its lock being renewed: a replica that dies mid-job
   * stops renewing, and the job goes back to the queue for another (stalled-job recovery).
   */
  lockMs: number;
  /** How long a stop waits for running jobs before leaving them to stall and run elsewhere. */
  shutdownGraceMs: number;
}

/**
 * The worker options `@nestjs/bullmq` builds each worker with, per class: `QueueProcessor`
 * registers them with `@Processor`, and the worker's constructor completes them from the
 * app's env (the explorer reads them once every provider exists, before any worker is built).
 */
const WORKER_OPTIONS = new WeakMap<object, Partial<WorkerOptions>>();

/**
 * How often a job may stall (its worker stopped renewing its lock: the replica was killed, ran
 * out of memory, lost its node) and still go back to the queue; once more and BullMQ fails it.
 * BullMQ's default, 1, dead-letters a job whose replica is lost twice while it holds it (a
 * rolling restart right after a crash), though the job did nothing wrong; five still stops a
 * job that crashes every worker that takes it.
 */
export const STALLS_BEFORE_DEAD_LETTER = 5;

/**
 * `@Processor` for a QueueWorker: the queue, its static options (STALLS_BEFORE_DEAD_LETTER unless
 * they say otherwise), and a worker that waits for `run()` (QueueWorker starts it once the app is
 * up, not while modules still initialise).
 */
export function QueueProcessor(queue: QueueName, options: StaticWorkerOptions = {}): ClassDecorator {
  return (target) => {
    const workerOptions: Partial<WorkerOptions> = { maxStalledCount: STALLS_BEFORE_DEAD_LETTER, ...options, autorun: false };
    WORKER_OPTIONS.set(target, workerOptions);
    Processor(queue, workerOptions)(target);
  };
}

/**
 * One BullMQ worker per subclass (`@QueueProcessor`, a `WorkerHost` of `@nestjs/bullmq`):
 * started once the app is up, on its own connection (BullMQ's blocking commands need one that
 * never gives up), each job run inside its request's context (request id and workspace in every
 * log line) and its producer's trace (the root module's `telemetry`), stalled jobs of dead
 * replicas taken back, and stopped gracefully: a stop lets the jobs in flight finish within the
 * shutdown grace, then abandons the rest to be re-run elsewhere.
 *
 * Failures come in two kinds (`isTransientFailure`). A job that hits an outage (PostgreSQL,
 * NATS, Redis away) waits in the delayed set with capped backoff and runs again without
 * spending one of its attempts, however long the outage lasts, and the outage is logged once
 * per 30 s, not per job. Any other failure spends an attempt (the queue's `attempts`, see
 * JOB_OPTIONS); after the last the job stays in the failed set, the dead-letter queue, with
 * one error line "… job dead-lettered", listed and replayed with `<owner>.dead-letters.*`.
 */
export abstract class QueueWorker<Q extends QueueName, Result = unknown>
  extends WorkerHost<Worker<QueueJobs[Q], Result>>
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  protected readonly logger: Logger;
  private readonly outages: OutageLog;
  private readonly connection: Redis;
  private started = false;
  /** The queue's depth for `/metrics`, read at scrape time on the worker's connection. */
  private gauges?: { queue: Queue; stop: () => void };

  protected constructor(private readonly settings: QueueWorkerSettings<Q>) {
    super();
    this.logger = new Logger(this.constructor.name);
    this.outages = new OutageLog(this.logger, `${settings.queue} jobs`);
    const options = WORKER_OPTIONS.get(this.constructor);
    if (!options) throw new Error(`${this.constructor.name} is a QueueWorker without @QueueProcessor`);
    this.connection = new Redis(settings.redisUrl, {
      maxRetriesPerRequest: null,
      lazyConnect: true,
      connectionName: `waggle-worker-${settings.queue}`,
    });
    Object.assign(options, {
      connection: this.connection,
      concurrency: settings.concurrency,
      lockDuration: settings.lockMs,
      stalledInterval: settings.lockMs,
    });
  }

  /** Runs one job; throwing fails (or retries, per the job's options) the job. */
  protected abstract handle(job: Job<QueueJobs[Q], Result>, token: string | undefined): Promise<Result>;

  /** The request a job belongs to, for its log lines. */
  protected abstract contextOf(data: QueueJobs[Q]): RequestContextStore;

  /**
   * A job failed on its last attempt and stays in the failed set. Runs once, after the error
   * line; a subclass settles what the job leaves behind (a run still `running` is recorded
   * failed), so nothing waits on a job that will not run again unless replayed.
   */
  protected onDeadLettered(_job: Job<QueueJobs[Q], Result>, _error: Error): Promise<void> {
    return Promise.resolve();
  }

  /** WorkerHost's entry point: the job inside its request's context. */
  process(job: Job<QueueJobs[Q], Result>, token?: string): Promise<Result> {
    return requestContext.run(this.contextOf(job.data), () => this.runJob(job, token));
  }

  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.logger.error({ err: error }, `${this.settings.queue} worker error`);
  }

  /** An attempt failed: a warning when another attempt follows, the dead-letter line after the last. */
  @OnWorkerEvent('failed')
  onJobFailed(job: Job<QueueJobs[Q], Result> | undefined, error: Error): void {
    const queue = this.settings.queue;
    if (!job) {
      this.logger.error({ queue, err: error }, `${queue} job failed`);
      return;
    }
    requestContext.run(this.contextOf(job.data), () => {
      // attempts: BullMQ's, spent by failures; runs: every start, outage re-runs and self-scheduled retries (callbacks) included.
      const line = {
        queue,
        job_id: job.id,
        request_id: this.contextOf(job.data).requestId ?? null,
        attempts: job.attemptsMade,
        runs: job.attemptsStarted,
        error: describeFailure(error),
      };
      // BullMQ sets finishedOn only when the job leaves for the failed set (no attempt left, or UnrecoverableError).
      if (typeof job.finishedOn !== 'number') {
        this.logger.warn(
          { ...line, max_attempts: job.opts.attempts ?? 1, retry_in_ms: job.delay },
          `${queue} job attempt failed; it will be retried`,
        );
        return;
      }
      this.logger.error(line, `${queue} job dead-lettered`);
      this.onDeadLettered(job, error).catch((settleError: unknown) =>
        this.logger.error({ queue, job_id: job.id, err: settleError }, `${queue} dead-lettered job could not be settled`),
      );
    });
  }

  /**
   * Runs the job; an outage sends it to the delayed set instead of failing it, so it does not
   * spend an attempt (BullMQ's documented way: `moveToDelayed` with the job's token, then
   * DelayedError). Its wait doubles with each outage re-run (`attemptsStarted` counts the runs,
   * `attemptsMade` the spent attempts), up to QUEUE_OUTAGE_BACKOFF.maxMs.
   */
  private async runJob(job: Job<QueueJobs[Q], Result>, token: string | undefined): Promise<Result> {
    let result: Result;
    try {
      result = await this.handle(job, token);
    } catch (error) {
      if (!isTransientFailure(error)) throw error;
      const delayMs = cappedBackoffMs(job.attemptsStarted - job.attemptsMade, QUEUE_OUTAGE_BACKOFF);
      this.outages.failed(error, { queue: this.settings.queue, job_id: job.id, retry_in_ms: delayMs });
      try {
        await job.moveToDelayed(Date.now() + delayMs, token);
      } catch {
        // Redis itself is away: the job stays active, its lock lapses and the stalled-job check
        // hands it back to the queue once Redis answers.
        throw error;
      }
      throw new DelayedError();
    }
    this.outages.recovered({ queue: this.settings.queue });
    return result;
  }

  /** The worker starts taking jobs once every module is up (NATS handlers, ledger publisher…). */
  async onApplicationBootstrap(): Promise<void> {
    const worker = this.worker;
    this.started = true;
    worker.run().catch((error: unknown) => this.onWorkerError(error as Error));
    await worker.waitUntilReady();
    const queue = this.settings.queue;
    const gaugeQueue = new Queue(queue, { connection: this.connection, prefix: worker.opts.prefix });
    this.gauges = { queue: gaugeQueue, stop: observeQueue(queue, gaugeQueue, this.connection) };
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.started) {
      // Never started (the app failed to come up): nothing runs, only the connection to close.
      await Promise.resolve()
        .then(() => this.worker.close(true))
        .catch(() => undefined);
      await this.connection.quit().catch(() => this.connection.disconnect());
      return;
    }
    this.started = false;
    const worker = this.worker;
    this.gauges?.stop();
    await this.gauges?.queue.close().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.settings.shutdownGraceMs)));
    if ((await Promise.race([worker.close().then(() => 'closed' as const), outOfTime])) === 'timeout') {
      // Jobs still running are abandoned: their locks lapse and they run again elsewhere.
      this.logger.warn(`${this.settings.queue} jobs still running at the end of the shutdown grace; leaving them to be re-run`);
      await worker.close(true);
    }
    clearTimeout(timer);
    // A connection handed to BullMQ is the caller's to close.
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
