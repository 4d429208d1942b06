import { Injectable } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import { QueueNames, type BudgetAlertBody, type BudgetAlertView, type BudgetCrossing } from '@waggle/contracts';
import { enqueue, type JobQueue } from '@waggle/platform';
import { createHash } from 'node:crypto';
import type { BudgetAlertSink } from '../governance/budget-alert-sink';
import { BudgetsRepository } from './budgets.repository';
import type { BudgetAlertEntity } from './entities/budget-alert.entity';

/**
 * One alert's identity as 32 hex digits, the same however often its crossing is handed over:
 * its webhook's `webhook-id` (`msg_…`, the delivery's job id, so one delivery) and the delivery
 * log's `request_id` (`req_…`, an alert belongs to no single run).
 */
export function alertDigest(crossing: Pick<BudgetCrossing, 'budget_id' | 'period_key' | 'threshold'>): string {
  return createHash('sha256')
    .update(`budget:${crossing.budget_id}:${crossing.period_key}:${crossing.threshold}`)
    .digest('hex')
    .slice(0, 32);
}

export function toBudgetAlertView(alert: BudgetAlertEntity): BudgetAlertView {
  return {
    id: alert.id,
    budget_id: alert.budgetId,
    event: alert.event,
    scope: alert.scope,
    scope_id: alert.scopeId,
    period: alert.period,
    period_key: alert.periodKey,
    threshold: alert.threshold,
    spent_micros: alert.spentMicros,
    limit_micros: alert.limitMicros,
    at: alert.at.toISOString(),
    delivery_id: alert.deliveryId,
  };
}

/**
 * The real BudgetAlertSink: each crossing is recorded (once per budget, period and threshold)
 * and, when its budget has an alert URL, handed to the callback-dispatcher as a signed webhook
 * (owner kind `budget`: the same signing, retries, delivery log and dead letters as callbacks).
 * A crossing handed over again is queued again under the same job id, so a crash between the
 * record and the queue loses no webhook and sends none twice.
 */
@Injectable()
export class BudgetAlerts implements BudgetAlertSink {
  constructor(
    private readonly budgets: BudgetsRepository,
    @InjectQueue(QueueNames.callbacks) private readonly callbacks: JobQueue<'callbacks'>,
  ) {}

  async deliver(crossings: readonly BudgetCrossing[]): Promise<void> {
    for (const crossing of crossings) await this.deliverOne(crossing);
  }

  async list(workspaceId: string, budgetId: string | undefined, limit: number): Promise<BudgetAlertView[]> {
    return (await this.budgets.listAlerts(workspaceId, budgetId, limit)).map(toBudgetAlertView);
  }

  private async deliverOne(crossing: BudgetCrossing): Promise<void> {
    const budget = await this.budgets.find(crossing.workspace_id, crossing.budget_id);
    const signed = budget?.alertUrl && budget.webhookSecretSealed ? { url: budget.alertUrl, id: budget.id } : null;
    const digest = alertDigest(crossing);
    const deliveryId = signed ? `msg_${digest}` : null;
    await this.budgets.insertAlert({
      workspaceId: crossing.workspace_id,
      budgetId: crossing.budget_id,
      event: crossing.event,
      scope: crossing.scope,
      scopeId: crossing.scope_id,
      period: crossing.period,
      periodKey: crossing.period_key,
      threshold: crossing.threshold,
      spentMicros: crossing.spent_micros,
      limitMicros: crossing.limit_micros,
      at: new Date(crossing.at),
      deliveryId,
    });
    if (!signed || !deliveryId) return;
    const body: BudgetAlertBody = {
      event: crossing.event,
      scope: crossing.scope,
      scope_id: crossing.scope_id,
      period: crossing.period,
      spent_micros: crossing.spent_micros,
      limit_micros: crossing.limit_micros,
      at: crossing.at,
    };
    await enqueue(this.callbacks, deliveryId, {
      delivery_id: deliveryId,
      workspace_id: crossing.workspace_id,
      request_id: `req_${digest}`,
      event_type: crossing.event,
      url: signed.url,
      body,
      owner: { kind: 'budget', id: signed.id },
      run_ended_at: crossing.at,
    });
  }
}
