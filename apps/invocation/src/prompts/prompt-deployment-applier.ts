import { Injectable } from '@nestjs/common';
import type { PromptDeploymentSpec, PromptVariantSpec, WebhookSecretView } from '@waggle/contracts';
import { DeploymentApplier, type VersionDraft } from '../deployments/deployment-applier';
import { McpToolsService } from '../mcp-tools/mcp-tools.service';
import type { PromptDeploymentEntity } from './entities/prompt-deployment.entity';
import type { PromptVariantEntity } from './entities/prompt-variant.entity';
import type { PromptVersionEntity } from './entities/prompt-version.entity';
import { promptVersionOf } from './prompt-definition';
import { PromptResolutionCache } from './prompt-resolution.cache';
import { PromptVariantReleases } from './prompt-variant-releases';
import { PromptWebhookSecrets } from './prompt-webhook-secrets.service';
import { PromptsRepository } from './prompts.repository';

/** Prompt deployments, applied and rotated as every kind of deployment is (DeploymentApplier). */
@Injectable()
export class PromptDeploymentApplier extends DeploymentApplier<
  PromptDeploymentSpec,
  PromptVariantSpec,
  PromptDeploymentEntity,
  PromptVariantEntity,
  PromptVersionEntity,
  WebhookSecretView
> {
  constructor(
    prompts: PromptsRepository,
    secrets: PromptWebhookSecrets,
    resolutions: PromptResolutionCache,
    tools: McpToolsService,
    releases: PromptVariantReleases,
  ) {
    super(
      { repository: prompts, secrets, resolutions, check: (workspaceId, specs) => tools.check(workspaceId, 'prompt', specs) },
      releases,
    );
  }

  /** The variant's definition, hashed in the locale's canonical form, with the variables its templates use. */
  protected versionOf(variant: PromptVariantSpec): VersionDraft<PromptVersionEntity> {
    return promptVersionOf(variant);
  }
}
