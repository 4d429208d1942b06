import 'reflect-metadata';
import { ArrayMaxSize, IsArray, IsUUID } from 'class-validator';
import { patternNames, rpc, PRIVATE_RPC_TIMEOUT_MS } from './rpc-contract';
import { DeploymentWebhookSecretRequest, WithRotationOverlap, type ShownWebhookSecret } from './webhook-owners';
import { DeploymentVariantRequest, WorkspaceIdRequest } from './common.dto';

/**
 * A workflow definition file's `workflows:` list for one workspace. The shape inside is
 * the workflow definition format's, checked by @waggle/workflows (paths such as
 * `workflows[0].variants[0].steps[2].url`), not here: class-validator only bounds the list.
 */
export class ApplyWorkflowsRequest {
  @IsUUID()
  workspace_id!: string;

  @IsArray()
  @ArrayMaxSize(500)
  workflows!: unknown[];
}

export interface AppliedWorkflowVariant {
  name: string;
  variant_id: string;
  /** The version the variant points at after this apply. */
  version: number;
  /** True when this apply made a new version (or the variant itself). */
  changed: boolean;
}

export interface AppliedWorkflowDeployment {
  deployment: string;
  workflow_deployment_id: string;
  /** Signs the deployment's `workflow.*` callbacks. */
  webhook_secret: string;
  created: boolean;
  variants: AppliedWorkflowVariant[];
}

/** A workflow input as the definition declares it. */
export interface WorkflowInputSummary {
  type: string;
  required: boolean;
  default?: unknown;
}

export interface WorkflowDeploymentSummary {
  deployment: string;
  workflow_deployment_id: string;
  created_at: string;
  variants: Array<{ name: string; variant_id: string; version: number | null; inputs: Record<string, WorkflowInputSummary> }>;
}

export interface WorkflowVersionSummary {
  version_id: string;
  version: number;
  /** The parsed variant with its defaults applied, as runs of this version execute it. */
  definition: Record<string, unknown>;
  created_at: string;
  current: boolean;
}

export interface WorkflowWebhookSecretView extends ShownWebhookSecret {
  deployment: string;
  workflow_deployment_id: string;
}

export class WorkflowVersionsRequest extends DeploymentVariantRequest {}

export class WorkflowWebhookSecretRequest extends DeploymentWebhookSecretRequest {}

export class RotateWorkflowWebhookSecretRequest extends WithRotationOverlap(WorkflowWebhookSecretRequest) {}

/**
 * Workflow deployments, in the invocation service: apply definitions, list them, read every
 * version of a variant, show and rotate a deployment's webhook secret.
 */
export const WorkflowDeploymentContracts = {
  applyWorkflows: rpc('invocation.workflows.apply', ApplyWorkflowsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    AppliedWorkflowDeployment[]
  >(),
  listWorkflows: rpc('invocation.workflows.list', WorkspaceIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    WorkflowDeploymentSummary[]
  >(),
  listWorkflowVersions: rpc('invocation.workflows.versions', WorkflowVersionsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    WorkflowVersionSummary[]
  >(),
  getWorkflowWebhookSecret: rpc('invocation.workflows.webhook-secret.get', WorkflowWebhookSecretRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<WorkflowWebhookSecretView>(),
  rotateWorkflowWebhookSecret: rpc('invocation.workflows.webhook-secret.rotate', RotateWorkflowWebhookSecretRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<WorkflowWebhookSecretView>(),
};

export const WorkflowDeploymentPatterns = patternNames(WorkflowDeploymentContracts);
