import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import {
  BUDGET_ALERT_EVENTS,
  BUDGET_PERIODS,
  BUDGET_SCOPES,
  BUDGET_THRESHOLD_PERCENT,
  CREDIT_ENTRY_KINDS,
  DEFAULT_BUDGET_THRESHOLDS,
  MAX_BUDGET_THRESHOLDS,
  MAX_PER_MINUTE,
  MAX_USER_LABEL_LENGTH,
  RATE_LIMIT_SCOPES,
  USAGE_SERIES_BUCKETS,
  USAGE_SERIES_GROUPS,
  SPEND_GROUPS,
} from '@waggle/contracts';

// What the OpenAPI document says about usage governance's private routes (the spec's decisions on
// usage governance). The bodies are validated with the contract's classes; these describe them.

const SCOPE_ID = `The API key's id (api_key) or the user label, 1 to ${MAX_USER_LABEL_LENGTH} characters (user)`;
const THRESHOLDS: ApiPropertyOptions = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_BUDGET_THRESHOLDS,
  uniqueItems: true,
  items: { type: 'integer', minimum: BUDGET_THRESHOLD_PERCENT.min, maximum: BUDGET_THRESHOLD_PERCENT.max },
  default: [...DEFAULT_BUDGET_THRESHOLDS],
  description: 'Percent of the limit at which an alert is sent, once per period each (stored ascending)',
};
const ALERT_URL = {
  type: 'string',
  nullable: true,
  maxLength: 2048,
  description: 'Where signed alerts are sent (https, or a host CALLBACK_URL_ALLOWLIST lists); null removes it',
  example: 'https://example.com/hooks/budget',
} as const;

/** `POST /v1/private/budgets`. */
export class BudgetDefinitionDoc {
  @ApiProperty({ enum: BUDGET_SCOPES })
  scope!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: `${SCOPE_ID}; absent for workspace` })
  scope_id?: string | null;

  @ApiProperty({ enum: BUDGET_PERIODS, description: 'UTC day or month' })
  period!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The cap in micro-USD (1 USD = 1,000,000)', example: 5_000_000 })
  limit_micros!: number;

  @ApiPropertyOptional(THRESHOLDS)
  thresholds?: number[];

  @ApiPropertyOptional(ALERT_URL)
  alert_url?: string | null;
}

/** `PATCH /v1/private/budgets/{id}`: scope and period are fixed. */
export class BudgetChangesDoc {
  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  limit_micros?: number;

  @ApiPropertyOptional(THRESHOLDS)
  thresholds?: number[];

  @ApiPropertyOptional(ALERT_URL)
  alert_url?: string | null;
}

export class BudgetDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: BUDGET_SCOPES })
  scope!: string;

  @ApiProperty({ type: 'string', nullable: true })
  scope_id!: string | null;

  @ApiProperty({ enum: BUDGET_PERIODS })
  period!: string;

  @ApiProperty({ type: 'integer' })
  limit_micros!: number;

  @ApiProperty({ type: [Number] })
  thresholds!: number[];

  @ApiProperty({ type: 'string', nullable: true })
  alert_url!: string | null;

  @ApiProperty({ type: 'integer', description: 'Real cost reconciled in the current UTC period (micro-USD)' })
  spent_micros!: number;

  @ApiProperty({ format: 'date-time', description: 'When the current period ends' })
  period_resets_at!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class BudgetWrittenDto extends BudgetDto {
  @ApiPropertyOptional({
    description: 'Signs the alerts (Standard Webhooks): answered once, by the write that first gave the budget an alert_url',
  })
  webhook_secret?: string;
}

export class BudgetListDto {
  @ApiProperty({ type: [BudgetDto], description: 'Oldest first' })
  budgets!: BudgetDto[];
}

export class DeletedDto {
  @ApiProperty({ example: 'Budget deleted successfully' })
  message!: string;
}

/** `POST /v1/private/rate_limits`. */
export class RateLimitDefinitionDoc {
  @ApiProperty({ enum: RATE_LIMIT_SCOPES })
  scope!: string;

  @ApiProperty({ description: SCOPE_ID })
  scope_id!: string;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_PER_MINUTE,
    description: 'At least one of the two rates',
  })
  requests_per_minute?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 1, maximum: MAX_PER_MINUTE })
  tokens_per_minute?: number | null;
}

/** `PATCH /v1/private/rate_limits/{id}`: null unsets a rate; one must stay set. */
export class RateLimitChangesDoc {
  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 1, maximum: MAX_PER_MINUTE })
  requests_per_minute?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 1, maximum: MAX_PER_MINUTE })
  tokens_per_minute?: number | null;
}

export class RateLimitDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: RATE_LIMIT_SCOPES })
  scope!: string;

  @ApiProperty()
  scope_id!: string;

  @ApiProperty({ type: 'integer', nullable: true })
  requests_per_minute!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  tokens_per_minute!: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class RateLimitListDto {
  @ApiProperty({ type: [RateLimitDto], description: 'Oldest first' })
  rate_limits!: RateLimitDto[];
}

export class CreditEntryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ type: 'integer', description: 'Micro-USD; negative for an adjustment down' })
  amount_micros!: number;

  @ApiProperty({ enum: CREDIT_ENTRY_KINDS })
  kind!: string;

  @ApiProperty({ type: 'string', nullable: true })
  note!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class CreditsDto {
  @ApiProperty({ type: 'integer', description: 'Micro-USD; may be below zero (runs already running when it reached zero finish)' })
  balance_micros!: number;

  @ApiProperty({ description: "Whether the workspace's plan draws hosted runs from credits" })
  applies!: boolean;

  @ApiProperty({ type: [CreditEntryDto], description: 'The latest top-ups and adjustments, newest first' })
  entries!: CreditEntryDto[];
}

export class BudgetAlertDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  budget_id!: string;

  @ApiProperty({ enum: BUDGET_ALERT_EVENTS })
  event!: string;

  @ApiProperty({ enum: BUDGET_SCOPES })
  scope!: string;

  @ApiProperty({ type: 'string', nullable: true })
  scope_id!: string | null;

  @ApiProperty({ enum: BUDGET_PERIODS })
  period!: string;

  @ApiProperty({ example: 'm202611', description: 'The UTC period: d + YYYYMMDD or m + YYYYMM' })
  period_key!: string;

  @ApiProperty({ type: 'integer', description: 'Percent of the limit' })
  threshold!: number;

  @ApiProperty({ type: 'integer' })
  spent_micros!: number;

  @ApiProperty({ type: 'integer' })
  limit_micros!: number;

  @ApiProperty({ format: 'date-time' })
  at!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The signed webhook's delivery (the callback delivery log's id); null without an alert_url",
  })
  delivery_id!: string | null;
}

export class BudgetAlertListDto {
  @ApiProperty({ type: [BudgetAlertDto], description: 'Newest first' })
  budget_alerts!: BudgetAlertDto[];
}

export class SpendRowDto {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The day (YYYY-MM-DD), model, API key id or user label; null for runs without one',
  })
  key!: string | null;

  @ApiProperty({ type: 'integer' })
  cost_micros!: number;

  @ApiProperty({ type: 'integer' })
  runs!: number;
}

export class SpendDto {
  @ApiProperty({ enum: SPEND_GROUPS })
  group_by!: string;

  @ApiProperty({ format: 'date' })
  from!: string;

  @ApiProperty({ format: 'date' })
  to!: string;

  @ApiProperty({ type: 'integer', description: 'Over the groups listed' })
  total_cost_micros!: number;

  @ApiProperty({ type: 'integer' })
  total_runs!: number;

  @ApiProperty({ type: [SpendRowDto], description: 'Days in order; otherwise the most expensive first (1000 at most)' })
  groups!: SpendRowDto[];
}

export class UsageSumsDto {
  @ApiProperty({ type: 'integer' })
  requests!: number;

  @ApiProperty({ type: 'integer', description: 'Runs that ended failed' })
  failed!: number;

  @ApiProperty({ type: 'integer', description: "Runs still queued now (this workspace's own)" })
  queued!: number;

  @ApiProperty({ type: 'integer', description: "Runs still running now (this workspace's own)" })
  running!: number;

  @ApiProperty({ type: 'integer', description: "The runs' prompt tokens as their usage recorded them" })
  input_tokens!: number;

  @ApiProperty({ type: 'integer', description: "The runs' completion tokens" })
  output_tokens!: number;

  @ApiProperty({ type: 'integer' })
  total_tokens!: number;

  @ApiProperty({ type: 'integer' })
  cost_micros!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: "95th percentile of the ended runs' durations; null when none ended" })
  p95_latency_ms!: number | null;
}

export class UsageSeriesPointDto extends UsageSumsDto {
  @ApiProperty({ format: 'date-time', description: "The bucket's start (UTC)" })
  bucket!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The model or the artifact's id; null for runs without one or without group_by",
  })
  key!: string | null;

  @ApiProperty({ description: 'The sum of the groups past the 10 most requested (key null)' })
  other!: boolean;
}

export class UsageSeriesDto {
  @ApiProperty({ format: 'date-time', description: "`from` taken down to its bucket's start" })
  from!: string;

  @ApiProperty({ format: 'date-time', description: 'Excluded' })
  to!: string;

  @ApiProperty({ enum: USAGE_SERIES_BUCKETS })
  bucket!: string;

  @ApiProperty({ enum: USAGE_SERIES_GROUPS, nullable: true })
  group_by!: string | null;

  @ApiProperty({ type: [UsageSeriesPointDto], description: 'Buckets with runs only, in order' })
  points!: UsageSeriesPointDto[];

  @ApiProperty({ type: UsageSumsDto })
  totals!: UsageSumsDto;
}
