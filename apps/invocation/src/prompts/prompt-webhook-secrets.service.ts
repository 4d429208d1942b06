import { Inject, Injectable, Logger } from '@nestjs/common';
import type { WebhookSecretView } from '@waggle/contracts';
import { APP_ENV } from '@waggle/platform';
import { OwnerWebhookSecrets, SecretSealer, WebhookTargetKeeper, type RegisteredPromptVariant, type WebhookTarget } from '@waggle/webhooks';
import type { InvocationEnv } from '../config/invocation.env';
import type { PromptDeploymentEntity } from './entities/prompt-deployment.entity';
import { PromptsRepository } from './prompts.repository';

/**
 * Each prompt deployment's webhook secret, kept as every webhook owner's is
 * (OwnerWebhookSecrets), and published with which version each variant runs (and the
 * variables it must be given) as the deployment's webhook target (kind `prompt_deployment`).
 */
@Injectable()
export class PromptWebhookSecrets extends OwnerWebhookSecrets<PromptDeploymentEntity, WebhookSecretView> {
  constructor(
    private readonly prompts: PromptsRepository,
    keeper: WebhookTargetKeeper,
    sealer: SecretSealer,
    @Inject(APP_ENV) env: InvocationEnv,
  ) {
    super({
      kind: 'prompt_deployment',
      keeper,
      sealer,
      overlapSeconds: env.WEBHOOK_SECRET_OVERLAP_SECONDS,
      store: {
        transaction: (work) => prompts.transaction(work),
        get: (workspaceId, name, options) => prompts.getDeployment(workspaceId, name, { lock: options?.lock }),
        saveSecrets: (deployment) => prompts.saveSecrets(deployment),
        findByIds: (ids) => prompts.findDeploymentsByIds(ids),
        idsPage: (skip, take) => prompts.deploymentIdsPage(skip, take),
      },
      view: (deployment, secret) => ({ deployment: deployment.name, prompt_endpoint_id: deployment.id, ...secret }),
      logIdField: 'deployment_id',
      logger: new Logger(PromptWebhookSecrets.name),
    });
  }

  /** Prompt triggers also need each variant's current version: variant id → what a trigger of it runs. */
  protected override async targetsOf(deployments: PromptDeploymentEntity[]): Promise<WebhookTarget[]> {
    const variants = await this.prompts.listVariants(deployments.map((deployment) => deployment.id));
    return deployments.map((deployment) => {
      const routes: Record<string, RegisteredPromptVariant> = {};
      for (const variant of variants) {
        if (variant.deploymentId === deployment.id && variant.currentVersion)
          routes[variant.id] = { name: variant.name, version_id: variant.currentVersion.id, variables: variant.currentVersion.variables };
      }
      return { ...this.targetOf(deployment), variants: routes };
    });
  }
}
