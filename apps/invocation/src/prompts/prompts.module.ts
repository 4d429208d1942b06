import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { McpToolsModule } from '../mcp-tools/mcp-tools.module';
import { PromptDeploymentApplier } from './prompt-deployment-applier';
import { PromptResolutionCache } from './prompt-resolution.cache';
import { PromptWebhookSecrets } from './prompt-webhook-secrets.service';
import { PromptsController } from './prompts.controller';
import { PromptsRepository } from './prompts.repository';
import { PromptsService } from './prompts.service';
import { PromptReleasesRepository } from './prompt-releases.repository';
import { PromptVariantReleases } from './prompt-variant-releases';

/** Prompt deployments, variants and immutable versions: apply, list, resolve for runs, and their webhook secrets. */
@Module({
  imports: [WebhooksModule, McpToolsModule],
  controllers: [PromptsController],
  providers: [
    PromptsRepository,
    PromptsService,
    PromptDeploymentApplier,
    PromptResolutionCache,
    PromptWebhookSecrets,
    PromptReleasesRepository,
    PromptVariantReleases,
  ],
  exports: [PromptResolutionCache, PromptWebhookSecrets, PromptReleasesRepository],
})
export class PromptsModule {}
