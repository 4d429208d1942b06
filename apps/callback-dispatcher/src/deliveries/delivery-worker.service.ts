import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { QueueNames, type CallbackDeliveryJob } from '@waggle/contracts';
import { Worker } from 'bullmq';
import Redis from 'ioredis';
import { CallbackDeliveryProcessor, type DeliveryJobResult } from './callback-delivery.processor';
import { DISPATCHER_SETTINGS, JOB_RETENTION, type DispatcherSettings } from './dispatcher-settings';

/**
 * The BullMQ worker on the `callbacks` queue, started once the app is up and closed
 * before its connections: a graceful stop lets the attempts in flight finish (within the
 * shutdown grace), then it stops taking jobs. Nothing is lost when a process dies instead:
 * a job it held active is re-run by BullMQ's stalled-job check, and jobs waiting out a
 * retry delay sit in Redis for whichever replica is running.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private worker?: Worker<CallbackDeliveryJob, DeliveryJobResult>;
  private connection?: Redis;
  private closing?: Promise<void>;

  constructor(
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
    private readonly processor: CallbackDeliveryProcessor,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // A hybrid app (HTTP + NATS microservice) may run the bootstrap hooks once per part.
    if (this.worker) return;
    // BullMQ's blocking commands need a connection that never gives up on a request.
    this.connection = new Redis(this.settings.redisUrl, {
      maxRetriesPerRequest: null,
      connectionName: 'waggle-callback-dispatcher-worker',
    });
    this.worker = new Worker<CallbackDeliveryJob, DeliveryJobResult>(
      QueueNames.callbacks,
      (job, token) => this.processor.process(job, token),
      {
        connection: this.connection,
        prefix: this.settings.queuePrefix,
        concurrency: this.settings.concurrency,
        lockDuration: this.settings.lockMs,
        stalledInterval: this.settings.lockMs,
        ...JOB_RETENTION,
        // A job is re-run after its worker died; a few deaths in a row before BullMQ gives up on it.
        maxStalledCount: 5,
      },
    );
    this.worker.on('error', (error) => this.logger.error({ msg: 'callback worker error', err: error }));
    this.worker.on('failed', (job, error) => {
      // Outcomes the processor decided are already logged; this catches BullMQ's own (a job stalled too often).
      if (job && error.name !== 'UnrecoverableError')
        this.logger.error({ msg: 'callback job failed', delivery_id: job.data.delivery_id, job_id: job.id, err: error });
    });
    await this.worker.waitUntilReady();
  }

  async beforeApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.closing) return this.closing;
    this.closing = this.close(worker);
    return this.closing;
  }

  private async close(worker: Worker<CallbackDeliveryJob, DeliveryJobResult>): Promise<void> {
    const graceful = worker.close();
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.settings.shutdownGraceMs)));
    if ((await Promise.race([graceful.then(() => 'closed' as const), outOfTime])) === 'timeout') {
      // Attempts still running are abandoned; their jobs stall and run again elsewhere.
      this.logger.warn({ msg: 'callback attempts still running at the end of the shutdown grace; leaving them to be re-run' });
      await worker.close(true);
    }
    clearTimeout(timer);
    await this.connection?.quit().catch(() => this.connection?.disconnect());
  }
}
