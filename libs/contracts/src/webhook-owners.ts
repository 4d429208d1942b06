import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Length, Max, Min } from 'class-validator';
import { numberFromText } from './common.dto';
import type { RequestBase } from './run-labels';

/**
 * Who owns a webhook secret (decisions: each prompt deployment, agent and workflow deployment has its own;
 * a budget with an alert URL signs its alerts with its own too, the spec's decisions on usage governance).
 */
export const WEBHOOK_OWNER_KINDS = ['prompt_deployment', 'agent', 'workflow_deployment', 'budget'] as const;
export type WebhookOwnerKind = (typeof WEBHOOK_OWNER_KINDS)[number];

/** An owner's webhook secret as every owner's view shows it. */
export interface ShownWebhookSecret {
  webhook_secret: string;
  /** Set during a rotation's overlap: until then the previous secret keeps working too (accepted where the owner takes triggers, and signing). */
  previous_secret_expires_at: string | null;
}

/** A workspace's deployment (prompt or workflow), named for its webhook secret. */
export class DeploymentWebhookSecretRequest {
  @IsUUID()
  workspace_id!: string;

  @IsString()
  @Length(1, 200)
  deployment!: string;
}

/** A webhook secret rotation's request: the owner's request (`Base`) and the overlap. */
export function WithRotationOverlap<TBase extends RequestBase>(Base: TBase) {
  class RotationRequest extends Base {
    /** How long the previous secret keeps working (and signing); the operator's default when absent. */
    @IsOptional()
    @Transform(numberFromText)
    @IsInt()
    @Min(0)
    @Max(30 * 24 * 3600)
    overlap_seconds?: number;
  }
  return RotationRequest;
}

/** What a client gives a rotation (the owner is in the path): the overlap alone. */
export class WebhookSecretRotation extends WithRotationOverlap(class {}) {}
