import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { QueueNames, type CallbackDeliveryJob } from '@waggle/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { DISPATCHER_SETTINGS, JOB_RETENTION, type DispatcherSettings } from './dispatcher-settings';

/** Puts a delivery back on the `callbacks` queue under a new job id, for an operator's redelivery. */
@Injectable()
export class RedeliveryQueue implements OnApplicationShutdown {
  private readonly connection: Redis;
  private readonly queue: Queue<CallbackDeliveryJob>;

  constructor(@Inject(DISPATCHER_SETTINGS) settings: DispatcherSettings) {
    // Fails fast while Redis is away, so the caller hears of it instead of waiting.
    this.connection = new Redis(settings.redisUrl, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectionName: 'waggle-callback-dispatcher-redelivery',
    });
    this.queue = new Queue<CallbackDeliveryJob>(QueueNames.callbacks, { connection: this.connection, prefix: settings.queuePrefix });
  }

  async add(jobId: string, job: CallbackDeliveryJob): Promise<void> {
    await this.queue.add('deliver', job, { ...JOB_RETENTION, jobId });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
