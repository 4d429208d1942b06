import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PROMPT_ENTITIES } from './entities';
import { PromptResolutionCache } from './prompt-resolution.cache';
import { PromptsController } from './prompts.controller';
import { PromptsService } from './prompts.service';
import { WebhookSecretsService } from '../webhooks/webhook-secrets.service';
import { WebhooksController } from '../webhooks/webhooks.controller';

/** Prompt deployments, variants and immutable versions, and their webhook secrets. */
@Module({
  imports: [TypeOrmModule.forFeature(PROMPT_ENTITIES)],
  controllers: [PromptsController, WebhooksController],
  providers: [PromptsService, PromptResolutionCache, WebhookSecretsService],
  exports: [PromptResolutionCache, WebhookSecretsService],
})
export class PromptsModule {}
