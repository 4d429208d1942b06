import { Controller } from '@nestjs/common';
import {
  ApplyWorkflowsRequest,
  RotateWorkflowWebhookSecretRequest,
  InvocationPatterns,
  WorkflowVersionsRequest,
  WorkflowWebhookSecretRequest,
  WorkspaceIdRequest,
  type AppliedWorkflowDeployment,
  type WorkflowDeploymentSummary,
  type WorkflowVersionSummary,
  type WorkflowWebhookSecretView,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { WorkflowDeploymentsService } from './workflow-deployments.service';

/** The NATS side of workflow deployments, for the gateway's private routes and the CLI. */
@Controller()
export class WorkflowDeploymentsController {
  constructor(private readonly workflows: WorkflowDeploymentsService) {}

  @RpcHandler(InvocationPatterns.applyWorkflows)
  apply(request: ApplyWorkflowsRequest): Promise<AppliedWorkflowDeployment[]> {
    return this.workflows.apply(request.workspace_id, request.workflows);
  }

  @RpcHandler(InvocationPatterns.listWorkflows)
  list(request: WorkspaceIdRequest): Promise<WorkflowDeploymentSummary[]> {
    return this.workflows.list(request.workspace_id);
  }

  @RpcHandler(InvocationPatterns.listWorkflowVersions)
  versions(request: WorkflowVersionsRequest): Promise<WorkflowVersionSummary[]> {
    return this.workflows.versionsOf(request.workspace_id, request.deployment, request.variant);
  }

  @RpcHandler(InvocationPatterns.getWorkflowWebhookSecret)
  webhookSecret(request: WorkflowWebhookSecretRequest): Promise<WorkflowWebhookSecretView> {
    return this.workflows.webhookSecret(request.workspace_id, request.deployment);
  }

  @RpcHandler(InvocationPatterns.rotateWorkflowWebhookSecret)
  rotateWebhookSecret(request: RotateWorkflowWebhookSecretRequest): Promise<WorkflowWebhookSecretView> {
    return this.workflows.rotateWebhookSecret(request.workspace_id, request.deployment, request.overlap_seconds);
  }
}
