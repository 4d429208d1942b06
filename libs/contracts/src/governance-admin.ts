import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { errorMessage, type ErrorDetail } from '@waggle/errors';
import { ListLimit, numberFromText, WorkspaceIdRequest } from './common.dto';
import {
  BUDGET_PERIODS,
  BUDGET_SCOPES,
  RATE_LIMIT_SCOPES,
  type BudgetAlertEvent,
  type BudgetPeriod,
  type BudgetScope,
  type RateLimitScope,
} from './governance';
import { patternNames, PRIVATE_RPC_TIMEOUT_MS, rpc } from './rpc-contract';

/**
 * Usage governance's administration (the spec's decisions on usage governance): the wire shapes
 * of the invocation service's budgets, rate limits, hosted credits, budget alerts and spend
 * reads, as the private API and the operator CLI manage them.
 */

/** Budgets one workspace may have. */
export const MAX_BUDGETS_PER_WORKSPACE = 100;
/** Rate limits one workspace may have. */
export const MAX_RATE_LIMITS_PER_WORKSPACE = 100;
/** A budget's soft thresholds: how many, and their range (percent of the limit; over 100 alerts past the cap). */
export const MAX_BUDGET_THRESHOLDS = 10;
export const BUDGET_THRESHOLD_PERCENT = { min: 1, max: 1000 } as const;
/** A user scope's id is a run's user label: the invoke's `user` bounds, not empty. */
export const MAX_USER_LABEL_LENGTH = 256;
/** Requests or tokens per minute: the most a limit may say. */
export const MAX_PER_MINUTE = 1_000_000_000;
/** Credit entries `GET /v1/private/credits` shows, newest first. */
export const CREDIT_ENTRIES_SHOWN = 20;
/** A top-up's or an adjustment's largest amount (micro-USD, either sign): one million dollars. */
export const MAX_CREDIT_ENTRY_MICROS = 1_000_000_000_000;
/** A spend read's longest range, in days. */
export const MAX_SPEND_RANGE_DAYS = 366;
export const CREDIT_ENTRY_KINDS = ['top_up', 'adjustment'] as const;
export type CreditEntryKind = (typeof CREDIT_ENTRY_KINDS)[number];
export const SPEND_GROUPS = ['day', 'model', 'api_key', 'user'] as const;
export type SpendGroup = (typeof SPEND_GROUPS)[number];
/** A spend read's dates: UTC calendar days. */
export const UTC_DATE_FORMAT = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why a scope id does not fit its scope (a message id), or null: none for the workspace, a key's id, a user label. */
export function scopeIdProblem(scope: unknown, scopeId: unknown): ErrorDetail | null {
  if (scope === 'workspace') return scopeId === undefined || scopeId === null ? null : { detail: 'scope_id_workspace' };
  if (scope === 'api_key') return typeof scopeId === 'string' && UUID.test(scopeId) ? null : { detail: 'scope_id_api_key' };
  if (scope === 'user')
    return typeof scopeId === 'string' && scopeId.length >= 1 && scopeId.length <= MAX_USER_LABEL_LENGTH
      ? null
      : { detail: 'scope_id_user', params: { max: MAX_USER_LABEL_LENGTH } };
  return null;
}

/** `scope_id` checked against the object's `scope` (scopeIdProblem). */
function IsScopeIdOfScope(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isScopeIdOfScope',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown, args) => scopeIdProblem((args?.object as { scope?: unknown }).scope, value) === null,
        defaultMessage: (args) => {
          const problem = scopeIdProblem((args?.object as { scope?: unknown }).scope, args?.value);
          return problem === null ? 'scope_id is invalid' : errorMessage(problem, 'en');
        },
      },
    });
}

/** Absent keeps the stored value. */
const unlessAbsent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
/** Absent keeps the stored value; null unsets it. */
const unlessAbsentOrNull = () => ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);

class BudgetSettings {
  /** Percent of the limit at which an alert is sent, once per period each (default [80, 100]). */
  @unlessAbsent()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BUDGET_THRESHOLDS)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(BUDGET_THRESHOLD_PERCENT.min, { each: true })
  @Max(BUDGET_THRESHOLD_PERCENT.max, { each: true })
  thresholds?: number[];

  /** Where alerts are sent (signed webhooks); checked against the callback URL policy. Null removes it. */
  @unlessAbsentOrNull()
  @IsString()
  @Length(1, 2048)
  alert_url?: string | null;
}

/** A new budget, as `POST /v1/private/budgets` and the CLI give it. */
export class BudgetDefinition extends BudgetSettings {
  @IsIn(BUDGET_SCOPES)
  scope!: BudgetScope;

  /** The API key's id or the user label; absent (or null) for the workspace. */
  @IsScopeIdOfScope()
  scope_id?: string | null;

  @IsIn(BUDGET_PERIODS)
  period!: BudgetPeriod;

  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  limit_micros!: number;
}

/** What an update may change: the limit, the thresholds, the alert URL (scope and period are the budget's identity). */
export class BudgetChanges extends BudgetSettings {
  @unlessAbsent()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  limit_micros?: number;
}

export class BudgetIdRequest extends WorkspaceIdRequest {
  @IsUUID()
  budget_id!: string;
}

export class CreateBudgetRequest extends WorkspaceIdRequest {
  @ValidateNested()
  @Type(() => BudgetDefinition)
  budget!: BudgetDefinition;
}

export class UpdateBudgetRequest extends BudgetIdRequest {
  @ValidateNested()
  @Type(() => BudgetChanges)
  budget!: BudgetChanges;
}

/** A budget as the API answers it, with its spend in the current period. */
export interface BudgetView {
  id: string;
  scope: BudgetScope;
  scope_id: string | null;
  period: BudgetPeriod;
  limit_micros: number;
  thresholds: number[];
  alert_url: string | null;
  /** Real cost reconciled so far in the current UTC period (micro-USD). */
  spent_micros: number;
  /** When the current period ends and the spend starts again from 0. */
  period_resets_at: string;
  created_at: string;
  updated_at: string;
}

/** A write that gave the budget its alert URL first: the webhook secret that signs its alerts, shown this once. */
export type BudgetWritten = BudgetView & { webhook_secret?: string };

class RateLimitSettings {
  @unlessAbsentOrNull()
  @IsInt()
  @Min(1)
  @Max(MAX_PER_MINUTE)
  requests_per_minute?: number | null;

  @unlessAbsentOrNull()
  @IsInt()
  @Min(1)
  @Max(MAX_PER_MINUTE)
  tokens_per_minute?: number | null;
}

/** A new rate limit: at least one of the two rates. */
export class RateLimitDefinition extends RateLimitSettings {
  @IsIn(RATE_LIMIT_SCOPES)
  scope!: RateLimitScope;

  @IsScopeIdOfScope()
  scope_id!: string;
}

/** What an update may change: either rate (null unsets it; one must stay set). */
export class RateLimitChanges extends RateLimitSettings {}

export class RateLimitIdRequest extends WorkspaceIdRequest {
  @IsUUID()
  rate_limit_id!: string;
}

export class CreateRateLimitRequest extends WorkspaceIdRequest {
  @ValidateNested()
  @Type(() => RateLimitDefinition)
  rate_limit!: RateLimitDefinition;
}

export class UpdateRateLimitRequest extends RateLimitIdRequest {
  @ValidateNested()
  @Type(() => RateLimitChanges)
  rate_limit!: RateLimitChanges;
}

export interface RateLimitView {
  id: string;
  scope: RateLimitScope;
  scope_id: string;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  created_at: string;
  updated_at: string;
}

/** The operator's credit change (CLI only: a workspace's key cannot mint credits). */
export class TopUpCreditsRequest extends WorkspaceIdRequest {
  /** Micro-USD; a top-up is positive, an adjustment either sign (not 0). */
  @IsInt()
  @Min(-MAX_CREDIT_ENTRY_MICROS)
  @Max(MAX_CREDIT_ENTRY_MICROS)
  amount_micros!: number;

  @IsIn(CREDIT_ENTRY_KINDS)
  kind!: CreditEntryKind;

  @IsOptional()
  @IsString()
  @Length(0, 500)
  note?: string;
}

export interface CreditEntryView {
  id: string;
  amount_micros: number;
  kind: CreditEntryKind;
  note: string | null;
  created_at: string;
}

export interface CreditsView {
  /** Micro-USD; may be below zero (runs already running when it reached zero finish). */
  balance_micros: number;
  /** Whether the workspace's plan draws hosted runs from credits (`hosted_credits`). */
  applies: boolean;
  /** The latest entries, newest first. */
  entries: CreditEntryView[];
}

/** `GET /v1/private/budget_alerts`: newest first, one budget's when given. */
export class BudgetAlertsFilter extends ListLimit {
  @IsOptional()
  @IsUUID()
  budget_id?: string;
}

export class ListBudgetAlertsRequest extends BudgetAlertsFilter {
  @IsUUID()
  workspace_id!: string;
}

export interface BudgetAlertView {
  id: string;
  budget_id: string;
  event: BudgetAlertEvent;
  scope: BudgetScope;
  scope_id: string | null;
  period: BudgetPeriod;
  period_key: string;
  threshold: number;
  spent_micros: number;
  limit_micros: number;
  at: string;
  /** The signed webhook's delivery (the callback delivery log's id); null when the budget had no alert URL. */
  delivery_id: string | null;
}

/** `GET /v1/private/spend`: sums per group over UTC days `from` to `to` (both included; default the current month). */
export class SpendFilter {
  @IsOptional()
  @IsIn(SPEND_GROUPS)
  group_by?: SpendGroup;

  @IsOptional()
  @Matches(UTC_DATE_FORMAT, { message: 'from must be a UTC date (YYYY-MM-DD)' })
  from?: string;

  @IsOptional()
  @Matches(UTC_DATE_FORMAT, { message: 'to must be a UTC date (YYYY-MM-DD)' })
  to?: string;
}

export class SpendRequest extends SpendFilter {
  @IsUUID()
  workspace_id!: string;
}

export interface SpendRow {
  /** The day (YYYY-MM-DD), the model, the API key's id or the user label; null for runs without one. */
  key: string | null;
  cost_micros: number;
  runs: number;
}

export interface SpendView {
  group_by: SpendGroup;
  from: string;
  to: string;
  total_cost_micros: number;
  total_runs: number;
  groups: SpendRow[];
}

/** `GET /v1/private/usage/series`: the request ledger summed per UTC hour or day, optionally per model or artifact. */
export const USAGE_SERIES_BUCKETS = ['hour', 'day'] as const;
export type UsageSeriesBucket = (typeof USAGE_SERIES_BUCKETS)[number];
export const USAGE_SERIES_GROUPS = ['model', 'artifact'] as const;
export type UsageSeriesGroup = (typeof USAGE_SERIES_GROUPS)[number];
/** A series' most buckets: 31 days of hours. */
export const MAX_USAGE_SERIES_BUCKETS = 744;
/** Groups a series keeps apart, the most requested first; the rest are summed in one `other` group. */
export const MAX_USAGE_SERIES_GROUPS = 10;

export class UsageSeriesFilter {
  /** The first instant (ISO 8601), taken down to its bucket's start; default `to` less 24 hours. */
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  /** The end (ISO 8601), excluded; default now. */
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @IsOptional()
  @IsIn(USAGE_SERIES_BUCKETS)
  bucket?: UsageSeriesBucket;

  @IsOptional()
  @IsIn(USAGE_SERIES_GROUPS)
  group_by?: UsageSeriesGroup;
}

export class UsageSeriesRequest extends UsageSeriesFilter {
  @IsUUID()
  workspace_id!: string;
}

/** The sums of some runs: all of a range (the totals), or one bucket of one group. */
export interface UsageSums {
  requests: number;
  failed: number;
  /** Runs still queued or running now: the workspace's own queue, never another's. */
  queued: number;
  running: number;
  /** Tokens as the runs' usage recorded them (prompt, completion, total); runs without usage add 0. */
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost_micros: number;
  /** The 95th percentile of the ended runs' durations (interpolated); null when none ended. */
  p95_latency_ms: number | null;
}

export interface UsageSeriesPoint extends UsageSums {
  /** The bucket's start (ISO 8601, UTC). */
  bucket: string;
  /** The model or the artifact's id (requestable_id); null for runs without one, or with no group_by. */
  key: string | null;
  /** True for the sum of the groups past the most requested ones (key null then). */
  other: boolean;
}

export interface UsageSeriesView {
  /** The range as read: `from` at its bucket's start, `to` excluded. */
  from: string;
  to: string;
  bucket: UsageSeriesBucket;
  group_by: UsageSeriesGroup | null;
  /** Only buckets with runs, in order; within a bucket the groups by key. */
  points: UsageSeriesPoint[];
  totals: UsageSums;
}

export class ShowCreditsRequest extends WorkspaceIdRequest {
  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(1)
  @Max(100)
  entries?: number;
}

export const GovernanceAdminContracts = {
  listBudgets: rpc('invocation.budgets.list', WorkspaceIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<BudgetView[]>(),
  createBudget: rpc('invocation.budgets.create', CreateBudgetRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<BudgetWritten>(),
  getBudget: rpc('invocation.budgets.get', BudgetIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<BudgetView>(),
  updateBudget: rpc('invocation.budgets.update', UpdateBudgetRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<BudgetWritten>(),
  deleteBudget: rpc('invocation.budgets.delete', BudgetIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<{ id: string }>(),
  listRateLimits: rpc('invocation.rate-limits.list', WorkspaceIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<RateLimitView[]>(),
  createRateLimit: rpc('invocation.rate-limits.create', CreateRateLimitRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<RateLimitView>(),
  getRateLimit: rpc('invocation.rate-limits.get', RateLimitIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<RateLimitView>(),
  updateRateLimit: rpc('invocation.rate-limits.update', UpdateRateLimitRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<RateLimitView>(),
  deleteRateLimit: rpc('invocation.rate-limits.delete', RateLimitIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<{
    id: string;
  }>(),
  showCredits: rpc('invocation.credits.show', ShowCreditsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<CreditsView>(),
  /** The operator's only: no gateway route sends it. */
  addCredits: rpc('invocation.credits.add', TopUpCreditsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<CreditsView>(),
  listBudgetAlerts: rpc('invocation.budget-alerts.list', ListBudgetAlertsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    BudgetAlertView[]
  >(),
  spend: rpc('invocation.spend.read', SpendRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<SpendView>(),
  usageSeries: rpc('invocation.usage-series.read', UsageSeriesRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<UsageSeriesView>(),
} as const;

export const GovernanceAdminPatterns = patternNames(GovernanceAdminContracts);
