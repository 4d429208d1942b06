import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { QueueNames, type CallbackDeliveryJob } from '@waggle/contracts';
import { QueueProducer } from '@waggle/platform';
import Redis from 'ioredis';
import { DISPATCHER_SETTINGS, type DispatcherSettings } from './dispatcher-settings';

/** Puts a delivery back on the `callbacks` queue under a new job id, for an operator's redelivery. */
@Injectable()
export class RedeliveryQueue implements OnApplicationShutdown {
  private readonly connection: Redis;
  private readonly queue: QueueProducer<'callbacks'>;

  constructor(@Inject(DISPATCHER_SETTINGS) settings: DispatcherSettings) {
    // Fails fast while Redis is away, so the caller hears of it instead of waiting.
    this.connection = new Redis(settings.redisUrl, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectionName: 'waggle-callback-dispatcher-redelivery',
    });
    this.queue = new QueueProducer(QueueNames.callbacks, this.connection, { prefix: settings.queuePrefix });
  }

  add(jobId: string, job: CallbackDeliveryJob): Promise<void> {
    return this.queue.add(jobId, job);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
