import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { DeliveryStatus } from '@waggle/contracts';
import { In, type Repository } from 'typeorm';
import { DeliveryAttemptEntity } from './entities/delivery-attempt.entity';
import { DeliveryEntity } from './entities/delivery.entity';

export interface DeliveryFilter {
  workspaceId: string;
  requestId?: string;
  status?: DeliveryStatus;
  limit: number;
}

/**
 * The delivery log as the workspace and the operator read it, and redelivery's claim on a
 * row. The worker's own statements, on every callback, are DeliveryLogRepository's.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(
    @InjectRepository(DeliveryEntity) private readonly deliveries: Repository<DeliveryEntity>,
    @InjectRepository(DeliveryAttemptEntity) private readonly attempts: Repository<DeliveryAttemptEntity>,
  ) {}

  /** The workspace's deliveries matching the filter, newest first. */
  list(filter: DeliveryFilter): Promise<DeliveryEntity[]> {
    const builder = this.deliveries
      .createQueryBuilder('delivery')
      .where('delivery.workspace_id = :workspace', { workspace: filter.workspaceId })
      .orderBy('delivery.created_at', 'DESC')
      .addOrderBy('delivery.id', 'DESC')
      .limit(filter.limit);
    if (filter.requestId) builder.andWhere('delivery.request_id = :requestId', { requestId: filter.requestId });
    if (filter.status) builder.andWhere('delivery.status = :status', { status: filter.status });
    return builder.getMany();
  }

  findById(id: string): Promise<DeliveryEntity | null> {
    return this.deliveries.findOneBy({ id });
  }

  /** Each delivery's attempts, in order (a delivery without any is absent). */
  async attemptsOf(deliveryIds: string[]): Promise<Map<string, DeliveryAttemptEntity[]>> {
    const byDelivery = new Map<string, DeliveryAttemptEntity[]>();
    if (deliveryIds.length === 0) return byDelivery;
    const attempts = await this.attempts.find({ where: { deliveryId: In(deliveryIds) }, order: { attempt: 'ASC' } });
    for (const attempt of attempts) {
      const list = byDelivery.get(attempt.deliveryId) ?? [];
      list.push(attempt);
      byDelivery.set(attempt.deliveryId, list);
    }
    return byDelivery;
  }

  /** The job that owns each of these deliveries now (a delivery without a row is absent). */
  async jobOwners(deliveryIds: string[]): Promise<Map<string, string>> {
    if (deliveryIds.length === 0) return new Map();
    const rows = await this.deliveries.find({ select: { id: true, jobId: true }, where: { id: In(deliveryIds) } });
    return new Map(rows.map((row) => [row.id, row.jobId]));
  }

  /**
   * Hands the delivery to a new job with a fresh retry budget, pending from now, unless
   * another job took it since it was read (then false).
   */
  async claimForJob(delivery: DeliveryEntity, jobId: string): Promise<boolean> {
    const claimed = await this.deliveries
      .createQueryBuilder()
      .update(DeliveryEntity)
      .set({ status: 'pending', jobId, jobAttemptCount: 0, nextAttemptAt: () => 'now()', completedAt: null })
      .where('id = :id AND job_id = :current', { id: delivery.id, current: delivery.jobId })
      .execute();
    return Boolean(claimed.affected);
  }

  /** Undoes claimForJob: the row as it was read, if the job `jobId` still owns it. */
  async releaseClaim(delivery: DeliveryEntity, jobId: string): Promise<void> {
    await this.deliveries
      .createQueryBuilder()
      .update(DeliveryEntity)
      .set({
        status: delivery.status,
        jobId: delivery.jobId,
        jobAttemptCount: delivery.jobAttemptCount,
        nextAttemptAt: delivery.nextAttemptAt,
        completedAt: delivery.completedAt,
      })
      .where('id = :id AND job_id = :jobId', { id: delivery.id, jobId })
      .execute();
  }
}
