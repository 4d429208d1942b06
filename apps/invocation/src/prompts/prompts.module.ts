import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { PROMPT_ENTITIES } from './entities';
import { PromptResolutionCache } from './prompt-resolution.cache';
import { PromptWebhookSecrets } from './prompt-webhook-secrets.service';
import { PromptsController } from './prompts.controller';
import { PromptsRepository } from './prompts.repository';
import { PromptsService } from './prompts.service';

/** Prompt deployments, variants and immutable versions: apply, list, resolve for runs, and their webhook secrets. */
@Module({
  imports: [TypeOrmModule.forFeature(PROMPT_ENTITIES), WebhooksModule],
  controllers: [PromptsController],
  providers: [PromptsRepository, PromptsService, PromptResolutionCache, PromptWebhookSecrets],
  exports: [PromptResolutionCache],
})
export class PromptsModule {}
