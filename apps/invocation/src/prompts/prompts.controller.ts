import { Controller } from '@nestjs/common';
import {
  ApplyPromptsRequest,
  InvocationPatterns,
  PromptVersionsRequest,
  PromptWebhookSecretRequest,
  RotatePromptWebhookSecretRequest,
  WorkspaceIdRequest,
  type AppliedDeployment,
  type PromptDeploymentSummary,
  type PromptVersionSummary,
  type WebhookSecretView,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { PromptWebhookSecrets } from './prompt-webhook-secrets.service';
import { PromptsService } from './prompts.service';

@Controller()
export class PromptsController {
  constructor(
    private readonly prompts: PromptsService,
    private readonly secrets: PromptWebhookSecrets,
  ) {}

  @RpcHandler(InvocationPatterns.listPrompts)
  list(request: WorkspaceIdRequest): Promise<PromptDeploymentSummary[]> {
    return this.prompts.list(request.workspace_id);
  }

  @RpcHandler(InvocationPatterns.listPromptVersions)
  versions(request: PromptVersionsRequest): Promise<PromptVersionSummary[]> {
    return this.prompts.versions(request.workspace_id, request.deployment, request.variant);
  }

  @RpcHandler(InvocationPatterns.applyPrompts)
  apply(request: ApplyPromptsRequest): Promise<AppliedDeployment[]> {
    return this.prompts.apply(request);
  }

  @RpcHandler(InvocationPatterns.getWebhookSecret)
  webhookSecret(request: PromptWebhookSecretRequest): Promise<WebhookSecretView> {
    return this.secrets.view(request.workspace_id, request.deployment);
  }

  @RpcHandler(InvocationPatterns.rotateWebhookSecret)
  rotateWebhookSecret(request: RotatePromptWebhookSecretRequest): Promise<WebhookSecretView> {
    return this.prompts.rotateWebhookSecret(request.workspace_id, request.deployment, request.overlap_seconds);
  }
}
