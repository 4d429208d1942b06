import 'reflect-metadata';
import { IsIn, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { REQUEST_ID_FORMAT, type UsageObject } from './invocation.patterns';
import { ListLimit } from './common.dto';
import { patternNames, rpc, PRIVATE_RPC_TIMEOUT_MS } from './rpc-contract';
import type { WebhookOwnerKind } from './webhook-owners';
import type { BudgetAlertEvent, BudgetPeriod, BudgetScope } from './governance';

/** The callback-dispatcher: the only sender of callbacks, and the keeper of their delivery log. */

export const CALLBACK_EVENT_TYPES = [
  'prompt.completed',
  'prompt.failed',
  'agent.completed',
  'agent.failed',
  'workflow.completed',
  'workflow.failed',
  'prompt.cancelled',
  'agent.cancelled',
  'workflow.cancelled',
  'budget.threshold_crossed',
  'budget.exceeded',
] as const;
export type CallbackEventType = (typeof CALLBACK_EVENT_TYPES)[number];

/** decisions: a run's callback body. */
export type RunCallbackBody =
  | {
      event_type: 'prompt.completed' | 'agent.completed';
      request_id: string;
      data: { response: string; usage: UsageObject | null; model: string };
    }
  | { event_type: 'workflow.completed'; request_id: string; data: { output: unknown } }
  | { event_type: 'prompt.failed' | 'agent.failed' | 'workflow.failed'; request_id: string; data: { error: string; error_code: string } }
  | { event_type: 'prompt.cancelled' | 'agent.cancelled' | 'workflow.cancelled'; request_id: string; data: { reason: 'cancelled' } };

/** What the dispatcher sends: a run's callback, or a budget's alert. */
export type CallbackBody = RunCallbackBody | BudgetAlertBody;

/**
 * A budget alert's body (the spec's decisions on usage governance, alerts): not a run's result, so
 * it has the spec's own shape, `event` rather than `event_type`.
 */
export interface BudgetAlertBody {
  event: BudgetAlertEvent;
  scope: BudgetScope;
  scope_id: string | null;
  period: BudgetPeriod;
  spent_micros: number;
  limit_micros: number;
  at: string;
}

/** `webhook-id` of a delivery: `msg_` + 32 lowercase hex characters. */
export const DELIVERY_ID_FORMAT = /^msg_[0-9a-f]{32}$/;

/**
 * A callback to send, as a service hands it to the dispatcher (queue `callbacks`, job id
 * = delivery_id, so enqueuing the same result twice makes one delivery). It carries no
 * secret: the dispatcher looks up the owner's current signing secrets when it sends, so
 * a retry after a rotation is signed with the secrets in force at that time.
 */
export interface CallbackDeliveryJob {
  delivery_id: string;
  workspace_id: string;
  request_id: string;
  event_type: CallbackEventType;
  url: string;
  body: CallbackBody;
  owner: { kind: WebhookOwnerKind; id: string };
  /** When the run ended (ISO time): the start of the end-to-callback latency. */
  run_ended_at: string;
}

/**
 * pending: waiting for its first or next attempt. succeeded: a 2xx arrived. gone: the
 * receiver answered 410, so retries stopped. refused: the URL or its address is not
 * allowed (SSRF guard). dead_lettered: every attempt failed.
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'gone', 'refused', 'dead_lettered'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryAttemptSummary {
  attempt: number;
  attempted_at: string;
  /** null when no HTTP answer arrived (refused, time-out, connection error). */
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface DeliverySummary {
  delivery_id: string;
  request_id: string;
  event_type: CallbackEventType;
  url: string;
  status: DeliveryStatus;
  attempts: DeliveryAttemptSummary[];
  created_at: string;
  next_attempt_at: string | null;
  completed_at: string | null;
}

/** The delivery log's filters, newest first. */
export class ListDeliveriesFilter extends ListLimit {
  @IsOptional()
  @Matches(REQUEST_ID_FORMAT)
  request_id?: string;

  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;

  /** The next page: the deliveries older than this one (the last `delivery_id` of the page before). */
  @IsOptional()
  @IsString()
  @Length(1, 100)
  before?: string;
}

export class ListDeliveriesRequest extends ListDeliveriesFilter {
  @IsUUID()
  workspace_id!: string;
}

export class DeliveryIdRequest {
  @IsUUID()
  workspace_id!: string;

  @IsString()
  @Length(1, 100)
  delivery_id!: string;
}

export const CallbackDispatcherContracts = {
  listDeliveries: rpc('callback-dispatcher.deliveries.list', ListDeliveriesRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    DeliverySummary[]
  >(),
  getDelivery: rpc('callback-dispatcher.deliveries.get', DeliveryIdRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<DeliverySummary>(),
  /** Sends the same callback again (same webhook-id), with a fresh attempt budget. */
  redeliver: rpc('callback-dispatcher.deliveries.redeliver', DeliveryIdRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<DeliverySummary>(),
};

export const CallbackPatterns = patternNames(CallbackDispatcherContracts);
