import { Injectable } from '@nestjs/common';
import type { CallbackDeliveryJob, DeliveryIdRequest, DeliverySummary, ListDeliveriesRequest } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { DeliveriesRepository } from './deliveries.repository';
import type { DeliveryAttemptEntity } from './entities/delivery-attempt.entity';
import type { DeliveryEntity } from './entities/delivery.entity';
import { RedeliveryQueue } from './redelivery.queue';

const DEFAULT_LIST_LIMIT = 100;

export function toDeliverySummary(delivery: DeliveryEntity, attempts: DeliveryAttemptEntity[]): DeliverySummary {
  return {
    delivery_id: delivery.id,
    request_id: delivery.requestId,
    event_type: delivery.eventType,
    url: delivery.url,
    status: delivery.status,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      attempted_at: attempt.attemptedAt.toISOString(),
      status_code: attempt.statusCode,
      latency_ms: attempt.latencyMs,
      error: attempt.error,
    })),
    created_at: delivery.createdAt.toISOString(),
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
    completed_at: delivery.completedAt?.toISOString() ?? null,
  };
}

/** `msg_…`, then `msg_…:redeliver:1`, `:2`, …: BullMQ keeps finished job ids, so each redelivery needs its own. */
export function nextRedeliveryJobId(deliveryId: string, currentJobId: string): string {
  const match = /:redeliver:(\d+)$/.exec(currentJobId);
  return `${deliveryId}:redeliver:${match ? Number(match[1]) + 1 : 1}`;
}

/** The delivery log as the workspace sees it, and redelivery. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly queue: RedeliveryQueue,
  ) {}

  /** Newest first, each with its attempts in order. */
  async list(query: ListDeliveriesRequest): Promise<DeliverySummary[]> {
    const deliveries = await this.deliveries.list({
      workspaceId: query.workspace_id,
      requestId: query.request_id,
      status: query.status,
      before: query.before,
      limit: query.limit ?? DEFAULT_LIST_LIMIT,
    });
    const attempts = await this.deliveries.attemptsOf(deliveries.map((delivery) => delivery.id));
    return deliveries.map((delivery) => toDeliverySummary(delivery, attempts.get(delivery.id) ?? []));
  }

  async get(request: DeliveryIdRequest): Promise<DeliverySummary> {
    const delivery = await this.find(request);
    return toDeliverySummary(delivery, (await this.deliveries.attemptsOf([delivery.id])).get(delivery.id) ?? []);
  }

  /**
   * Sends the delivery again at once with a fresh retry budget, whatever its state: the
   * same delivery id (so `webhook-id`) and body, signed with the secrets in force now,
   * under a new job. The row names the new job first, so a job of the old budget still
   * waiting in Redis finds it is superseded and sends nothing.
   */
  async redeliver(request: DeliveryIdRequest): Promise<DeliverySummary> {
    for (;;) {
      const delivery = await this.find(request);
      const jobId = nextRedeliveryJobId(delivery.id, delivery.jobId);
      // Another redelivery of the same delivery won the row: read it again and go after it.
      if (!(await this.deliveries.claimForJob(delivery, jobId))) continue;
      const job: CallbackDeliveryJob = {
        delivery_id: delivery.id,
        workspace_id: delivery.workspaceId,
        request_id: delivery.requestId,
        event_type: delivery.eventType,
        url: delivery.url,
        body: delivery.body,
        owner: { kind: delivery.ownerKind, id: delivery.ownerId },
        // A redelivery's latency counts from the operator's request, not the long-past run.
        run_ended_at: new Date().toISOString(),
      };
      try {
        await this.queue.add(jobId, job);
      } catch (error) {
        // Redis did not take it: put the row back as it was, so it does not wait for a job that never comes.
        await this.deliveries.releaseClaim(delivery, jobId);
        throw new WaggleException('upstream_request_failed', { status: 503, detail: 'redelivery_not_queued', cause: error });
      }
      return this.get(request);
    }
  }

  /** The workspace's own delivery only: another workspace's id is simply not found. */
  private async find({ workspace_id, delivery_id }: DeliveryIdRequest): Promise<DeliveryEntity> {
    const delivery = await this.deliveries.findById(delivery_id);
    if (!delivery || delivery.workspaceId !== workspace_id)
      throw new WaggleException('resource_not_found', { detail: 'delivery_not_found' });
    return delivery;
  }
}
