import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  InvocationPatterns,
  PromptWebhookSecretRequest,
  RepublishWebhookTargetRequest,
  RotatePromptWebhookSecretRequest,
  type RepublishedWebhookTarget,
  type WebhookSecretView,
} from '@waggle/contracts';
import { WebhookSecretsService } from './webhook-secrets.service';

@Controller()
export class WebhooksController {
  constructor(private readonly secrets: WebhookSecretsService) {}

  @MessagePattern(InvocationPatterns.getWebhookSecret)
  show(@Payload() request: PromptWebhookSecretRequest): Promise<WebhookSecretView> {
    return this.secrets.view(request.workspace_id, request.deployment);
  }

  @MessagePattern(InvocationPatterns.rotateWebhookSecret)
  rotate(@Payload() request: RotatePromptWebhookSecretRequest): Promise<WebhookSecretView> {
    return this.secrets.rotate(request.workspace_id, request.deployment, request.overlap_seconds);
  }

  @MessagePattern(InvocationPatterns.republishWebhookTarget)
  async republish(@Payload() request: RepublishWebhookTargetRequest): Promise<RepublishedWebhookTarget> {
    return { found: (await this.secrets.publish([request.id])) > 0 };
  }
}
