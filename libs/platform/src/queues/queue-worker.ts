import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { QueueJobs, QueueName } from '@waggle/contracts';
import { Worker, type Job, type WorkerOptions } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import Redis from 'ioredis';
import { requestContext, type RequestContextStore } from '../context/request-context';

/** BullMQ's trace propagation: producers store the caller's trace context on the job, workers continue it. */
export function queueTelemetry(): BullMQOtel {
  return new BullMQOtel({ tracerName: 'waggle.queues' });
}

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
  /** BullMQ key prefix (tests isolate their queues with one). */
  prefix?: string;
  /** Anything else the queue needs (retention of finished jobs, how often a job may stall…). */
  options?: Omit<Partial<WorkerOptions>, 'connection' | 'concurrency' | 'lockDuration' | 'stalledInterval' | 'prefix' | 'telemetry'>;
}

/**
 * One BullMQ worker per subclass: started once the app is up, on its own connection (BullMQ's
 * blocking commands need one that never gives up), each job run inside its request's context
 * (request id and workspace in every log line) and its producer's trace, stalled jobs of dead
 * replicas taken back, and stopped gracefully: a stop lets the jobs in flight finish within the
 * shutdown grace, then abandons the rest to be re-run elsewhere.
 */
export abstract class QueueWorker<Q extends QueueName, Result = unknown> implements OnApplicationBootstrap, BeforeApplicationShutdown {
  protected readonly logger: Logger;
  private worker?: Worker<QueueJobs[Q], Result>;
  private connection?: Redis;

  protected constructor(private readonly settings: QueueWorkerSettings<Q>) {
    this.logger = new Logger(this.constructor.name);
  }

  /** Runs one job; throwing fails (or retries, per the job's options) the job. */
  protected abstract process(job: Job<QueueJobs[Q], Result>, token: string | undefined): Promise<Result>;

  /** The request a job belongs to, for its log lines. */
  protected abstract contextOf(data: QueueJobs[Q]): RequestContextStore;

  /** A job failed for good, or for this attempt; the default logs it. */
  protected onFailed(job: Job<QueueJobs[Q], Result> | undefined, error: Error): void {
    this.logger.warn({ job_id: job?.id, attempts: job?.attemptsMade, err: error }, `${this.settings.queue} job failed`);
  }

  async onApplicationBootstrap(): Promise<void> {
    const { queue, redisUrl, concurrency, lockMs, prefix, options } = this.settings;
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName: `waggle-worker-${queue}` });
    this.worker = new Worker<QueueJobs[Q], Result>(
      queue,
      (job, token) => requestContext.run(this.contextOf(job.data), () => this.process(job, token)),
      {
        ...options,
        connection: this.connection,
        concurrency,
        lockDuration: lockMs,
        stalledInterval: lockMs,
        ...(prefix && { prefix }),
        telemetry: queueTelemetry(),
      },
    );
    this.worker.on('error', (error) => this.logger.error({ err: error }, `${queue} worker error`));
    this.worker.on('failed', (job, error) => this.onFailed(job, error));
    await this.worker.waitUntilReady();
  }

  async beforeApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.settings.shutdownGraceMs)));
    if ((await Promise.race([worker.close().then(() => 'closed' as const), outOfTime])) === 'timeout') {
      // Jobs still running are abandoned: their locks lapse and they run again elsewhere.
      this.logger.warn(`${this.settings.queue} jobs still running at the end of the shutdown grace; leaving them to be re-run`);
      await worker.close(true);
    }
    clearTimeout(timer);
    // A connection handed to BullMQ is the caller's to close.
    await this.connection?.quit().catch(() => this.connection?.disconnect());
  }
}
