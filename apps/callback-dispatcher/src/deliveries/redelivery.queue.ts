import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { QueueNames, type CallbackDeliveryJob } from '@waggle/contracts';
import { enqueue, type JobQueue } from '@waggle/platform';

/**
 * Puts a delivery back on the `callbacks` queue under a new job id, for an operator's
 * redelivery; on the app's Redis client, which fails fast while Redis is away, so the caller
 * hears of it instead of waiting.
 */
@Injectable()
export class RedeliveryQueue {
  constructor(@InjectQueue(QueueNames.callbacks) private readonly queue: JobQueue<'callbacks'>) {}

  add(jobId: string, job: CallbackDeliveryJob): Promise<void> {
    return enqueue(this.queue, jobId, job);
  }
}
