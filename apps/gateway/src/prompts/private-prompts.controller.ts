import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController, OmitType } from '@nestjs/swagger';
import {
  ApplyPromptsRequest,
  InvocationPatterns,
  send,
  WebhookSecretRotation,
  type AppliedDeployment,
  type PromptDeploymentSummary,
  type PromptVersionSummary,
  type WebhookSecretView,
} from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';

/** The definition file's shape, as JSON: the contract's apply request for the key's workspace. */
class ApplyPromptsBody extends OmitType(ApplyPromptsRequest, ['workspace_id'] as const) {}

/**
 * First-party management of prompt deployments (the CLI's `apply` does the same over
 * NATS): apply definitions, list deployments, read every version of a variant, show and
 * rotate a deployment's webhook secret.
 */
@ApiExcludeController()
@Controller('v1/private/prompts')
@PrivateApiRoute()
export class PrivatePromptsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get()
  async list(@Req() request: AuthenticatedRequest): Promise<{ prompts: PromptDeploymentSummary[] }> {
    return {
      prompts: await send(this.rpc, InvocationPatterns.listPrompts, { workspace_id: request.auth.workspace_id }),
    };
  }

  @Post('apply')
  @HttpCode(200)
  async apply(@Body() body: ApplyPromptsBody, @Req() request: AuthenticatedRequest): Promise<{ prompts: AppliedDeployment[] }> {
    return {
      prompts: await send(this.rpc, InvocationPatterns.applyPrompts, { workspace_id: request.auth.workspace_id, prompts: body.prompts }),
    };
  }

  @Get(':deployment/variants/:variant/versions')
  async versions(
    @Param('deployment') deployment: string,
    @Param('variant') variant: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ versions: PromptVersionSummary[] }> {
    const versions = await send(this.rpc, InvocationPatterns.listPromptVersions, {
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
  ): Promise<{ webhook_secret: WebhookSecretView }> {
    return {
      webhook_secret: await send(this.rpc, InvocationPatterns.getWebhookSecret, { workspace_id: request.auth.workspace_id, deployment }),
    };
  }

  @Post(':deployment/webhook_secret/rotate')
  @HttpCode(200)
  async rotateWebhookSecret(
    @Param('deployment') deployment: string,
    @Body() body: WebhookSecretRotation,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ webhook_secret: WebhookSecretView }> {
    const rotation = { workspace_id: request.auth.workspace_id, deployment, overlap_seconds: body.overlap_seconds };
    return { webhook_secret: await send(this.rpc, InvocationPatterns.rotateWebhookSecret, rotation) };
  }
}
