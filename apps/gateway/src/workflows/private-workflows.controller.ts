import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController, OmitType } from '@nestjs/swagger';
import {
  ApplyWorkflowsRequest,
  send,
  WebhookSecretRotation,
  WorkflowDeploymentPatterns,
  type AppliedWorkflowDeployment,
  type WorkflowDeploymentSummary,
  type WorkflowVersionSummary,
  type WorkflowWebhookSecretView,
} from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';

/** The definition file's `workflows:` list, as JSON: the contract's apply request for the key's workspace. */
class ApplyWorkflowsBody extends OmitType(ApplyWorkflowsRequest, ['workspace_id'] as const) {}

/**
 * First-party management of workflow deployments (the CLI's `apply` and `workflow` commands
 * do the same over NATS): apply definitions, list deployments, read every version of a
 * variant, show and rotate a deployment's webhook secret.
 */
@ApiExcludeController()
@Controller('v1/private/workflows')
@PrivateApiRoute()
export class PrivateWorkflowsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get()
  async list(@Req() request: AuthenticatedRequest): Promise<{ workflows: WorkflowDeploymentSummary[] }> {
    return {
      workflows: await send(this.rpc, WorkflowDeploymentPatterns.listWorkflows, { workspace_id: request.auth.workspace_id }),
    };
  }

  @Post('apply')
  @HttpCode(200)
  async apply(@Body() body: ApplyWorkflowsBody, @Req() request: AuthenticatedRequest): Promise<{ workflows: AppliedWorkflowDeployment[] }> {
    const applied = await send(this.rpc, WorkflowDeploymentPatterns.applyWorkflows, {
      workspace_id: request.auth.workspace_id,
      workflows: body.workflows,
    });
    return { workflows: applied };
  }

  @Get(':deployment/variants/:variant/versions')
  async versions(
    @Param('deployment') deployment: string,
    @Param('variant') variant: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ versions: WorkflowVersionSummary[] }> {
    const versions = await send(this.rpc, WorkflowDeploymentPatterns.listWorkflowVersions, {
      workspace_id: request.auth.workspace_id,
      deployment,
      variant,
    });
    return { versions };
  }

  @Get(':deployment/webhook_secret')
  async webhookSecret(
    @Param('deployment') deployment: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ webhook_secret: WorkflowWebhookSecretView }> {
    const view = await send(this.rpc, WorkflowDeploymentPatterns.getWorkflowWebhookSecret, {
      workspace_id: request.auth.workspace_id,
      deployment,
    });
    return { webhook_secret: view };
  }

  @Post(':deployment/webhook_secret/rotate')
  @HttpCode(200)
  async rotateWebhookSecret(
    @Param('deployment') deployment: string,
    @Body() body: WebhookSecretRotation,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ webhook_secret: WorkflowWebhookSecretView }> {
    const rotation = { workspace_id: request.auth.workspace_id, deployment, overlap_seconds: body.overlap_seconds };
    return {
      webhook_secret: await send(this.rpc, WorkflowDeploymentPatterns.rotateWorkflowWebhookSecret, rotation),
    };
  }
}
