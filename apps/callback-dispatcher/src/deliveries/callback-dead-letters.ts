import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { QueueNames, type CallbackDeliveryJob, type DeadLetterReplay } from '@waggle/contracts';
import { QueueDeadLetters, type JobQueue } from '@waggle/platform';
import type { Job } from 'bullmq';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesService } from './deliveries.service';

/**
 * Callbacks that ended without success: the `callbacks` failed set (dead-lettered after the
 * last attempt, refused by the URL policy, answered 410, or failed by their bookkeeping). The
 * delivery log already knows how to send one again, so a replay is a redelivery (same
 * `webhook-id`, fresh retry budget, a job of its own); only a job whose delivery was never
 * opened is run again as it is. A failed job whose delivery was redelivered since is no
 * longer a dead letter.
 */
@Injectable()
export class CallbackDeadLetters extends QueueDeadLetters<'callbacks'> {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly service: DeliveriesService,
    @InjectQueue(QueueNames.callbacks) queue: JobQueue<'callbacks'>,
  ) {
    super(queue);
  }

  /** Each delivery attempt is a run of the job (it delays itself between attempts, spending none of BullMQ's). */
  protected override attemptsOf(job: Job<CallbackDeliveryJob>): number {
    return job.attemptsStarted;
  }

  protected override async replayJob(job: Job<CallbackDeliveryJob>): Promise<DeadLetterReplay> {
    const delivery = await this.deliveries.findById(job.data.delivery_id);
    if (!delivery) return this.requeue(job);
    await this.service.redeliver({ workspace_id: delivery.workspaceId, delivery_id: delivery.id });
    return { source: this.source, id: String(job.id), outcome: 'requeued', error: null };
  }

  /** The delivery row names the job that owns it now: an older failed job was superseded by a redelivery. */
  protected override async stillDead(jobs: Array<Job<CallbackDeliveryJob>>): Promise<Array<Job<CallbackDeliveryJob>>> {
    if (jobs.length === 0) return jobs;
    const owner = await this.deliveries.jobOwners(jobs.map((job) => job.data.delivery_id));
    return jobs.filter((job) => !owner.has(job.data.delivery_id) || owner.get(job.data.delivery_id) === job.id);
  }
}
