import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Length, Matches, Max, Min } from 'class-validator';
import type { FlatMetadata } from './flat-metadata';
import { REQUEST_ID_FORMAT, type UsageObject } from './invocation.patterns';
import { ListLimit } from './list-limit';

/**
 * BullMQ queue names. They are wire format: renaming one strands the jobs already in
 * Redis, so a rename is a migration.
 */
export const QueueNames = {
  /** Terminal results waiting to be delivered; only the callback-dispatcher consumes it. */
  callbacks: 'callbacks',
  /** Accepted prompt webhook triggers; invocation's workers consume it. */
  promptRuns: 'prompt-runs',
} as const;

/** Who owns a webhook secret (decisions: each deployment, agent and workflow deployment has its own). */
export const WEBHOOK_OWNER_KINDS = ['prompt_deployment', 'agent', 'workflow_deployment'] as const;
export type WebhookOwnerKind = (typeof WEBHOOK_OWNER_KINDS)[number];

export const CALLBACK_EVENT_TYPES = ['prompt.completed', 'prompt.failed', 'agent.completed', 'agent.failed', 'workflow.completed', 'workflow.failed'] as const;
export type CallbackEventType = (typeof CALLBACK_EVENT_TYPES)[number];

/** decisions: the callback body. */
export type CallbackBody =
  | { event_type: 'prompt.completed' | 'agent.completed'; request_id: string; data: { response: string; usage: UsageObject | null; model: string } }
  | { event_type: 'workflow.completed'; request_id: string; data: { output: unknown } }
  | { event_type: 'prompt.failed' | 'agent.failed' | 'workflow.failed'; request_id: string; data: { error: string; error_code: string } };

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
 * A prompt webhook trigger the gateway accepted (queue `prompt-runs`, job id =
 * request_id). The version is pinned when the trigger is accepted.
 */
export interface PromptTriggerJob {
  request_id: string;
  workspace_id: string;
  prompt_endpoint_id: string;
  variant_id: string;
  version_id: string;
  inputs: Record<string, unknown>;
  metadata: FlatMetadata;
  user: string | null;
  callback_url: string;
  accepted_at: string;
}

/** The delivery log: what the callback-dispatcher answers over NATS. */
export const CallbackPatterns = {
  listDeliveries: 'callback-dispatcher.deliveries.list',
  getDelivery: 'callback-dispatcher.deliveries.get',
  redeliver: 'callback-dispatcher.deliveries.redeliver',
} as const;

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

/** Webhook secrets of prompt deployments: shown and rotated through private routes and the CLI. */
export class PromptWebhookSecretRequest {
  @IsUUID()
  workspace_id!: string;

  @IsString()
  @Length(1, 200)
  deployment!: string;
}

export class RotatePromptWebhookSecretRequest extends PromptWebhookSecretRequest {
  /** How long the previous secret keeps working; the operator's default when absent. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(30 * 24 * 3600)
  overlap_seconds?: number;
}

export interface WebhookSecretView {
  deployment: string;
  prompt_endpoint_id: string;
  webhook_secret: string;
  /** Set during a rotation's overlap: until then the previous secret is accepted and signs too. */
  previous_secret_expires_at: string | null;
}

/** Asks the owner to write a webhook target to the registry again (the registry lost it). */
export class RepublishWebhookTargetRequest {
  @IsUUID()
  id!: string;
}

export interface RepublishedWebhookTarget {
  /** False when the owner has no such deployment: the trigger's 404 is real. */
  found: boolean;
}
