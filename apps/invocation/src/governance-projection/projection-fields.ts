import {
  encodeBudgetField,
  encodeLimitField,
  GovernanceKeys,
  periodKey,
  ProjectionFields,
  scopeToken,
  type BudgetPeriod,
} from '@waggle/contracts';
import type { GovernanceSnapshot, ProjectedBudget } from './governance-projection.repository';

/** How long a period's spend key outlives its start: a day's 3 days, a month's 40 (seconds). */
export const SPEND_KEY_TTL_SECONDS: Readonly<Record<BudgetPeriod, number>> = { day: 3 * 24 * 3600, month: 40 * 24 * 3600 };

/** The projection hash as field/value pairs, `version` first (ProjectionFields' encoding). */
export function projectionFields(snapshot: GovernanceSnapshot): string[] {
  const fields = [ProjectionFields.version, String(snapshot.version)];
  for (const budget of snapshot.budgets)
    fields.push(
      ProjectionFields.budget(scopeToken(budget.scope, budget.scope_id), budget.period),
      encodeBudgetField(budget.limit_micros, budget.id, budget.thresholds),
    );
  for (const limit of snapshot.rateLimits)
    fields.push(
      ProjectionFields.limit(scopeToken(limit.scope, limit.scope_id)),
      encodeLimitField(limit.requests_per_minute, limit.tokens_per_minute),
    );
  return fields;
}

/** The spend key a budget is read and charged on in the period holding `at`. */
export function budgetSpendKey(workspaceId: string, budget: Pick<ProjectedBudget, 'scope' | 'scope_id' | 'period'>, at: Date): string {
  return GovernanceKeys.spend(workspaceId, scopeToken(budget.scope, budget.scope_id), periodKey(budget.period, at));
}

/** The start of the UTC day or month holding `at`. */
export function periodStart(period: BudgetPeriod, at: Date): Date {
  return period === 'day'
    ? new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()))
    : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}
