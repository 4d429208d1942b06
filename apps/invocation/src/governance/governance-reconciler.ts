import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  BUDGET_PERIODS,
  governanceKeyBase,
  GovernanceKeys,
  periodKey,
  TERMINAL_RUN_STATUSES,
  type BudgetCrossing,
  type BudgetPeriod,
  type BudgetScope,
  type LedgerRecord,
} from '@waggle/contracts';
import { REDIS_CLIENT } from '@waggle/platform';
import { waggleMetrics } from '@waggle/telemetry';
import type Redis from 'ioredis';
import { BUDGET_ALERT_SINK, type BudgetAlertSink } from './budget-alert-sink';
import { RECONCILE_SCRIPT } from './reconcile-script';

const DAY_S = 86_400;
/** Spend counters outlive their period a little, for reads of the period just ended (decisions: day keys 3 days, month keys 40 days). */
const SPEND_TTL_S: Record<BudgetPeriod, number> = { day: 3 * DAY_S, month: 40 * DAY_S };
/** A run is charged once however often its ledger record comes back within a week. */
const RECONCILED_TTL_S = 7 * DAY_S;

type Reply = Array<string | number>;
type RedisWithReconcile = Redis & {
  reconcileRun(reconciled: string, reservation: string, projection: string, ...args: Array<string | number>): Promise<Reply>;
};

/** The real tokens of a run as its usage tells them, -1 when it does not (the estimate then stands). */
export function usedTokens(usage: LedgerRecord['usage']): number {
  const total = usage?.total_tokens;
  return typeof total === 'number' && Number.isSafeInteger(total) && total >= 0 ? total : -1;
}

/** A run's cost when its record carries a usable one (integer micro-USD ≥ 0). */
export function costOf(record: LedgerRecord): number | undefined {
  const cost = record.cost_micros;
  return typeof cost === 'number' && Number.isSafeInteger(cost) && cost >= 0 ? cost : undefined;
}

/** The ended records of a batch, one per run (its last state in the batch). */
export function endedRuns(records: readonly LedgerRecord[]): LedgerRecord[] {
  const byRun = new Map<string, LedgerRecord>();
  for (const record of records)
    if (TERMINAL_RUN_STATUSES.includes(record.status) && typeof record.workspace_id === 'string' && typeof record.request_id === 'string')
      byRun.set(`${record.workspace_id}/${record.request_id}`, record);
  return [...byRun.values()];
}

/** A crossing from the script's flat answer (8 values per crossing after the leading 1). */
export function crossingsOf(record: LedgerRecord, reply: Reply, at: string): BudgetCrossing[] {
  const crossings: BudgetCrossing[] = [];
  for (let index = 1; index + 8 <= reply.length; index += 8) {
    const [budgetId, scope, scopeId, period, key, threshold, spent, limit] = reply.slice(index, index + 8);
    const percent = Number(threshold);
    crossings.push({
      workspace_id: record.workspace_id,
      budget_id: String(budgetId),
      scope: scope as BudgetScope,
      scope_id: scope === 'workspace' ? null : String(scopeId),
      period: period as BudgetPeriod,
      period_key: String(key),
      threshold: percent,
      event: percent >= 100 ? 'budget.exceeded' : 'budget.threshold_crossed',
      spent_micros: Number(spent),
      limit_micros: Number(limit),
      at,
    });
  }
  return crossings;
}

/**
 * Usage governance's reconciliation (the spec's decisions on usage governance): once a batch of
 * ledger records is written, each ended run is settled in Redis by one script, all of the
 * batch's pipelined in one round trip (RECONCILE_SCRIPT): its reservation released, its real
 * cost added to the spend of its workspace, API key and end user for the day and the month of
 * its start, taken from the hosted credits when it ran on the operator's keys, and the budget
 * thresholds it crossed handed to the BudgetAlertSink. A failure throws, so the batch comes
 * back; a run already settled is not charged again.
 */
@Injectable()
export class GovernanceReconciler {
  private readonly logger = new Logger(GovernanceReconciler.name);
  private readonly redis: RedisWithReconcile;

  constructor(
    @Inject(REDIS_CLIENT) redis: Redis,
    @Inject(BUDGET_ALERT_SINK) private readonly alerts: BudgetAlertSink,
  ) {
    if (!('reconcileRun' in redis)) redis.defineCommand('reconcileRun', { numberOfKeys: 3, lua: RECONCILE_SCRIPT });
    this.redis = redis as RedisWithReconcile;
  }

  async reconcile(records: readonly LedgerRecord[], now = new Date()): Promise<void> {
    const ended = endedRuns(records);
    if (ended.length === 0) return;
    const pipeline = this.redis.pipeline() as ReturnType<Redis['pipeline']> & {
      reconcileRun(...args: Array<string | number>): unknown;
    };
    for (const record of ended) {
      const workspaceId = record.workspace_id;
      const startedAt = new Date(record.generated_at);
      const at = Number.isNaN(startedAt.getTime()) ? now : startedAt;
      const [day, month] = BUDGET_PERIODS.map((period) => periodKey(period, at));
      pipeline.reconcileRun(
        GovernanceKeys.reconciled(workspaceId, record.request_id),
        GovernanceKeys.reservation(workspaceId, record.request_id),
        GovernanceKeys.projection(workspaceId),
        governanceKeyBase(workspaceId),
        record.request_id,
        record.api_key_id ?? '',
        record.user ?? '',
        costOf(record) ?? '',
        record.credentials === 'hosted' ? 1 : 0,
        day,
        month,
        usedTokens(record.usage),
        SPEND_TTL_S.day,
        SPEND_TTL_S.month,
        RECONCILED_TTL_S,
      );
    }
    const results = (await pipeline.exec()) ?? [];
    const failure = results.find(([error]) => error);
    if (failure || results.length !== ended.length) throw failure?.[0] ?? new Error('the reconciliation pipeline answered short');
    const crossings: BudgetCrossing[] = [];
    const at = now.toISOString();
    results.forEach(([, reply], index) => {
      const record = ended[index];
      const answer = reply as Reply;
      if (answer[0] !== 1) return;
      const cost = costOf(record) ?? 0;
      if (cost > 0) {
        const spend = waggleMetrics().governanceSpend;
        spend.add(cost, { scope: 'workspace' });
        if (record.api_key_id) spend.add(cost, { scope: 'api_key' });
        if (record.user) spend.add(cost, { scope: 'user' });
      }
      crossings.push(...crossingsOf(record, answer, at));
    });
    if (crossings.length === 0) return;
    // The crossings are marked alerted already: a sink that fails loses them, so it is told and the batch is not retried for it.
    await this.alerts
      .deliver(crossings)
      .catch((error: unknown) => this.logger.error({ err: error, crossings: crossings.length }, 'budget alerts could not be delivered'));
  }
}
