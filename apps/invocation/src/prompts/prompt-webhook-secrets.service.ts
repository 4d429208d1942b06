import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { WebhookSecretView } from '@waggle/contracts';
import { APP_ENV } from '@waggle/platform';
import {
  digestWebhookSecret,
  generateWebhookSecret,
  SecretSealer,
  type RegisteredPromptVariant,
  type WebhookTarget,
} from '@waggle/webhooks';
import type { InvocationEnv } from '../config/invocation.env';
import { WebhookTargetsService, type WebhookTargetSource } from '../webhooks/webhook-targets.service';
import type { PromptDeploymentEntity } from './entities/prompt-deployment.entity';
import type { PromptVariantEntity } from './entities/prompt-variant.entity';
import { PromptsRepository } from './prompts.repository';

/**
 * Each prompt deployment's webhook secret: sealed in its row, shown and rotated on request,
 * and published (with which version each variant runs) as the deployment's webhook target.
 */
@Injectable()
export class PromptWebhookSecrets implements WebhookTargetSource, OnModuleInit {
  readonly kind = 'prompt_deployment';
  private readonly logger = new Logger(PromptWebhookSecrets.name);

  constructor(
    private readonly prompts: PromptsRepository,
    private readonly registry: WebhookTargetsService,
    private readonly sealer: SecretSealer,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /** A new deployment's secret, sealed for its row. */
  newSealedSecret(): string {
    return this.sealer.seal(generateWebhookSecret());
  }

  open(sealed: string): string {
    return this.sealer.open(sealed);
  }

  /** Rewrites the registry entries of these deployments. */
  publish(deploymentIds: string[]): Promise<number> {
    return this.registry.publish(this.kind, deploymentIds);
  }

  async view(workspaceId: string, deploymentName: string): Promise<WebhookSecretView> {
    return this.toView(await this.prompts.getDeployment(workspaceId, deploymentName));
  }

  /**
   * A new current secret; the old one keeps authenticating triggers and signing
   * callbacks for the overlap, so callers can switch without losing a delivery.
   */
  async rotate(
    workspaceId: string,
    deploymentName: string,
    overlapSeconds = this.env.WEBHOOK_SECRET_OVERLAP_SECONDS,
  ): Promise<WebhookSecretView> {
    const deployment = await this.prompts.transaction(async (manager) => {
      const found = await this.prompts.getDeployment(workspaceId, deploymentName, { manager, lock: true });
      found.previousWebhookSecretSealed = overlapSeconds > 0 ? found.webhookSecretSealed : null;
      found.previousSecretExpiresAt = overlapSeconds > 0 ? new Date(Date.now() + overlapSeconds * 1000) : null;
      found.webhookSecretSealed = this.newSealedSecret();
      return this.prompts.saveDeployment(manager, found);
    });
    await this.publish([deployment.id]);
    this.logger.log({ msg: 'webhook secret rotated', deployment_id: deployment.id, overlap_seconds: overlapSeconds });
    return this.toView(deployment);
  }

  async targets(deploymentIds: string[]): Promise<WebhookTarget[]> {
    const deployments = await this.prompts.findDeploymentsByIds(deploymentIds);
    const variants = await this.prompts.listVariants(deployments.map((deployment) => deployment.id));
    return deployments.map((deployment) =>
      this.targetOf(
        deployment,
        variants.filter((variant) => variant.deploymentId === deployment.id),
      ),
    );
  }

  idsPage(skip: number, take: number): Promise<string[]> {
    return this.prompts.deploymentIdsPage(skip, take);
  }

  private targetOf(deployment: PromptDeploymentEntity, variants: PromptVariantEntity[]): WebhookTarget {
    const current = this.sealer.open(deployment.webhookSecretSealed);
    const secrets: WebhookTarget['secrets'] = [
      { digest: digestWebhookSecret(current), sealed: deployment.webhookSecretSealed, expires_at: null },
    ];
    if (
      deployment.previousWebhookSecretSealed &&
      deployment.previousSecretExpiresAt &&
      deployment.previousSecretExpiresAt.getTime() > Date.now()
    ) {
      const previous = this.sealer.open(deployment.previousWebhookSecretSealed);
      secrets.push({
        digest: digestWebhookSecret(previous),
        sealed: deployment.previousWebhookSecretSealed,
        expires_at: deployment.previousSecretExpiresAt.toISOString(),
      });
    }
    const routes: Record<string, RegisteredPromptVariant> = {};
    for (const variant of variants) {
      if (variant.currentVersion)
        routes[variant.id] = { name: variant.name, version_id: variant.currentVersion.id, variables: variant.currentVersion.variables };
    }
    return { kind: this.kind, id: deployment.id, workspace_id: deployment.workspaceId, secrets, variants: routes };
  }

  private toView(deployment: PromptDeploymentEntity): WebhookSecretView {
    const expiresAt = deployment.previousSecretExpiresAt;
    return {
      deployment: deployment.name,
      prompt_endpoint_id: deployment.id,
      webhook_secret: this.sealer.open(deployment.webhookSecretSealed),
      previous_secret_expires_at: expiresAt && expiresAt.getTime() > Date.now() ? expiresAt.toISOString() : null,
    };
  }
}
