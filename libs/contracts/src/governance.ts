import 'reflect-metadata';
import { IsUUID } from 'class-validator';
import { patternNames, rpc } from './rpc-contract';

/**
 * Usage governance (the spec's decisions on usage governance): the shared
 * vocabulary of the gateway, which admits runs in one Redis round trip, and of the invocation
 * service, which owns budgets, rate limits and credits in PostgreSQL, projects them into Redis
 * and reconciles each run's real cost and tokens there once its ledger record ends.
 *
 * Every Redis key of a workspace carries the workspace id as a hash tag (`{<workspace id>}`), so
 * one script may touch all of them on a Redis Cluster too. The layout is wire format: the
 * gateway's admission script, the invocation service's reconciliation and its projection writer
 * must agree on it, so it lives here and nowhere else.
 */

export const BUDGET_SCOPES = ['workspace', 'api_key', 'user'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
export const RATE_LIMIT_SCOPES = ['api_key', 'user'] as const;
export type RateLimitScope = (typeof RATE_LIMIT_SCOPES)[number];
export const BUDGET_PERIODS = ['day', 'month'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];
/** Whose provider credentials a model call used: the operator's (hosted, drawing on credits) or the workspace's own. */
export const CREDENTIAL_SOURCES = ['hosted', 'workspace'] as const;
export type CredentialSource = (typeof CREDENTIAL_SOURCES)[number];
export const BUDGET_ALERT_EVENTS = ['budget.threshold_crossed', 'budget.exceeded'] as const;
export type BudgetAlertEvent = (typeof BUDGET_ALERT_EVENTS)[number];
/** decisions: a budget's soft thresholds when none are given (percent of its limit). */
export const DEFAULT_BUDGET_THRESHOLDS: readonly number[] = [80, 100];

/**
 * A scope as it appears inside key names and projection fields: `ws` for the workspace,
 * `key:<api key id>`, `user:<user label>` (the label is the last part, so it may hold any character).
 */
export type ScopeToken = 'ws' | `key:${string}` | `user:${string}`;

export function scopeToken(scope: BudgetScope, scopeId: string | null): ScopeToken {
  if (scope === 'workspace') return 'ws';
  if (scopeId === null || scopeId === '') throw new Error(`a ${scope} scope needs its id`);
  return scope === 'api_key' ? `key:${scopeId}` : `user:${scopeId}`;
}

/** `d20261128` for a UTC day, `m202611` for a UTC month. */
export function periodKey(period: BudgetPeriod, at: Date): string {
  const iso = at.toISOString();
  return period === 'day' ? `d${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}` : `m${iso.slice(0, 4)}${iso.slice(5, 7)}`;
}

/** The start of the next period (UTC): when a day's or a month's spend starts again. */
export function periodEnd(period: BudgetPeriod, at: Date): Date {
  return period === 'day'
    ? new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1))
    : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

const PREFIX = 'waggle:gov';

/** Every governance key in Redis. */
export const GovernanceKeys = {
  /**
   * The workspace's projection (a hash, see ProjectionFields): its budgets and rate limits as
   * the invocation service last wrote them. Absent: not loaded yet (or lost with Redis), so the
   * gateway asks the owner to load it (GovernancePatterns.loadProjection) and admits again.
   */
  projection: (workspaceId: string) => `${PREFIX}:{${workspaceId}}:cfg`,
  /** Hosted credit balance, integer micro-USD (may be negative): top-ups add, hosted runs' costs subtract. */
  credits: (workspaceId: string) => `${PREFIX}:{${workspaceId}}:credits`,
  /** Spend of a scope in a period (integer micro-USD), real costs only, added at reconciliation. */
  spend: (workspaceId: string, scope: ScopeToken, period: string) => `${PREFIX}:{${workspaceId}}:spend:${period}:${scope}`,
  /** Cost reservations of runs started and not yet reconciled: a sorted set of request ids scored by expiry (epoch ms). */
  pending: (workspaceId: string, scope: ScopeToken) => `${PREFIX}:{${workspaceId}}:pending:${scope}`,
  /** The amounts of those reservations (hash request id → micro-USD) and their sum (field `total`). */
  pendingAmounts: (workspaceId: string, scope: ScopeToken) => `${PREFIX}:{${workspaceId}}:pending-amounts:${scope}`,
  /** A rate window counter: requests or tokens of a scope in one UTC minute (epoch minute number). */
  window: (workspaceId: string, kind: 'requests' | 'tokens', scope: ScopeToken, minute: number) =>
    `${PREFIX}:{${workspaceId}}:${kind}:${minute}:${scope}`,
  /** One admitted run's reservation (hash): what to release when its ledger record ends. */
  reservation: (workspaceId: string, requestId: string) => `${PREFIX}:{${workspaceId}}:reservation:${requestId}`,
  /** Set once a run's cost has been charged, so a ledger record delivered twice is charged once. */
  reconciled: (workspaceId: string, requestId: string) => `${PREFIX}:{${workspaceId}}:reconciled:${requestId}`,
  /** Set once a budget's threshold has alerted in a period: one alert per threshold per period. */
  alerted: (workspaceId: string, budgetId: string, period: string, threshold: number) =>
    `${PREFIX}:{${workspaceId}}:alerted:${budgetId}:${period}:${threshold}`,
  /** The cost a run of the workspace is expected to have (micro-USD), learned from reconciled runs: what admission reserves. */
  runCostEstimate: (workspaceId: string) => `${PREFIX}:{${workspaceId}}:run-cost-estimate`,
} as const;

/**
 * The projection hash's fields. Values are strings:
 * - `version`: the owner's projection version (a newer projection replaces an older one, never the reverse);
 * - `budget:<scope token>:<day|month>` = `<limit_micros>|<budget id>|<thresholds, comma-separated percents>`;
 * - `limit:<scope token>` (api key and user scopes only) = `<requests_per_minute>|<tokens_per_minute>`, a part empty when unset.
 */
export const ProjectionFields = {
  version: 'version',
  budget: (scope: ScopeToken, period: BudgetPeriod) => `budget:${scope}:${period}`,
  limit: (scope: ScopeToken) => `limit:${scope}`,
} as const;

export function encodeBudgetField(limitMicros: number, budgetId: string, thresholds: readonly number[]): string {
  return `${limitMicros}|${budgetId}|${thresholds.join(',')}`;
}

export function encodeLimitField(requestsPerMinute: number | null, tokensPerMinute: number | null): string {
  return `${requestsPerMinute ?? ''}|${tokensPerMinute ?? ''}`;
}

/** A budget's threshold crossed by a reconciled run: what an alert is made of. */
export interface BudgetCrossing {
  workspace_id: string;
  budget_id: string;
  scope: BudgetScope;
  scope_id: string | null;
  period: BudgetPeriod;
  /** The period's key (`d20261128`, `m202611`). */
  period_key: string;
  threshold: number;
  event: BudgetAlertEvent;
  spent_micros: number;
  limit_micros: number;
  at: string;
}

export class LoadGovernanceProjectionRequest {
  @IsUUID()
  workspace_id!: string;
}

/** The invocation service's governance patterns the gateway calls. */
export const GovernanceContracts = {
  /** Writes the workspace's projection into Redis (credits balance and period spend too when they are missing) and answers its version. */
  loadProjection: rpc('invocation.governance.load', LoadGovernanceProjectionRequest, { timeoutMs: 5_000 }).returns<{ version: number }>(),
} as const;

export const GovernancePatterns = patternNames(GovernanceContracts);
