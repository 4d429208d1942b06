import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { QueueNames, type CallbackDeliveryJob, type DeadLetterReplay, type DeadLetterSummary } from '@waggle/contracts';
import { QueueDeadLetters, REDIS_CLIENT, type DeadLetterSource } from '@waggle/platform';
import type { Job } from 'bullmq';
import type Redis from 'ioredis';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesService } from './deliveries.service';
import { DISPATCHER_SETTINGS, type DispatcherSettings } from './dispatcher-settings';

/**
 * Callbacks that ended without success: the `callbacks` failed set (dead-lettered after the
 * last attempt, refused by the URL policy, answered 410, or failed by their bookkeeping). The
 * delivery log already knows how to send one again, so a replay is a redelivery (same
 * `webhook-id`, fresh retry budget, a job of its own); only a job whose delivery was never
 * opened is run again as it is. A failed job whose delivery was redelivered since is no
 * longer a dead letter.
 */
@Injectable()
export class CallbackDeadLetters implements DeadLetterSource, OnApplicationShutdown {
  readonly source = QueueNames.callbacks;
  private readonly failed: QueueDeadLetters<'callbacks'>;

  constructor(
    @Inject(DISPATCHER_SETTINGS) settings: DispatcherSettings,
    private readonly deliveries: DeliveriesRepository,
    private readonly service: DeliveriesService,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.failed = new QueueDeadLetters(QueueNames.callbacks, redis, {
      prefix: settings.queuePrefix,
      // Each delivery attempt is a run of the job (it delays itself between attempts, spending none of BullMQ's).
      attemptsOf: (job) => job.attemptsStarted,
      stillDead: (jobs) => this.notRedelivered(jobs),
      replay: async (job, requeue) => {
        const delivery = await this.deliveries.findById(job.data.delivery_id);
        if (!delivery) return requeue();
        await this.service.redeliver({ workspace_id: delivery.workspaceId, delivery_id: delivery.id });
        return { source: this.source, id: String(job.id), outcome: 'requeued', error: null };
      },
    });
  }

  list(limit: number): Promise<DeadLetterSummary[]> {
    return this.failed.list(limit);
  }

  replay(id: string): Promise<DeadLetterReplay> {
    return this.failed.replay(id);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.failed.close();
  }

  /** The delivery row names the job that owns it now: an older failed job was superseded by a redelivery. */
  private async notRedelivered(jobs: Array<Job<CallbackDeliveryJob>>): Promise<Array<Job<CallbackDeliveryJob>>> {
    const owner = await this.deliveries.jobOwners(jobs.map((job) => job.data.delivery_id));
    return jobs.filter((job) => !owner.has(job.data.delivery_id) || owner.get(job.data.delivery_id) === job.id);
  }
}
