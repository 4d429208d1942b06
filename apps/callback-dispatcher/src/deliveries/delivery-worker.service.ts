import { Inject, Injectable } from '@nestjs/common';
import { QueueNames, type CallbackDeliveryJob } from '@waggle/contracts';
import { JOB_RETENTION, QueueProcessor, QueueWorker, type RequestContextStore } from '@waggle/platform';
import type { Job } from 'bullmq';
import { CallbackDeliveryProcessor, type DeliveryJobResult } from './callback-delivery.processor';
import { DISPATCHER_SETTINGS, type DispatcherSettings } from './dispatcher-settings';

/**
 * The worker on the `callbacks` queue. Nothing is lost when a process dies: a job it held
 * active is re-run by BullMQ's stalled-job check, and jobs waiting out a retry delay sit in
 * Redis for whichever replica is running. A delivery that ends without success (dead-lettered,
 * refused, gone) leaves its job in the failed set with the base class's dead-letter line.
 */
@Injectable()
// A job is re-run after its worker died; a few deaths in a row before BullMQ gives up on it.
@QueueProcessor(QueueNames.callbacks, JOB_RETENTION)
export class DeliveryWorker extends QueueWorker<'callbacks', DeliveryJobResult> {
  constructor(
    @Inject(DISPATCHER_SETTINGS) settings: DispatcherSettings,
    private readonly processor: CallbackDeliveryProcessor,
  ) {
    super({
      queue: QueueNames.callbacks,
      redisUrl: settings.redisUrl,
      concurrency: settings.concurrency,
      lockMs: settings.lockMs,
      shutdownGraceMs: settings.shutdownGraceMs,
    });
  }

  protected handle(job: Job<CallbackDeliveryJob, DeliveryJobResult>, token: string | undefined): Promise<DeliveryJobResult> {
    return this.processor.process(job, token);
  }

  protected contextOf(data: CallbackDeliveryJob): RequestContextStore {
    return { requestId: data.request_id, workspaceId: data.workspace_id };
  }
}
