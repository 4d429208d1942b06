import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { WebhookSecretView } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, REDIS_CLIENT } from '@waggle/platform';
import { digestWebhookSecret, generateWebhookSecret, SecretSealer, WebhookRegistry, type RegisteredPromptVariant, type WebhookTarget } from '@waggle/webhooks';
import type Redis from 'ioredis';
import { In, type DataSource } from 'typeorm';
import type { InvocationEnv } from '../config/invocation.env';
import { PromptDeploymentEntity } from '../prompts/entities/prompt-deployment.entity';
import { PromptVariantEntity } from '../prompts/entities/prompt-variant.entity';

const RESYNC_BATCH = 500;

/**
 * The webhook secrets of prompt deployments: sealed in the database, shown and rotated
 * on request, and published to the webhook registry in Redis, where the gateway checks a
 * trigger's secret and the callback-dispatcher finds the secrets to sign with.
 */
@Injectable()
export class WebhookSecretsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookSecretsService.name);
  private readonly sealer: SecretSealer;
  private readonly registry: WebhookRegistry;
  private resyncTimer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(REDIS_CLIENT) redis: Redis,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {
    this.sealer = SecretSealer.fromEnv(env);
    this.registry = new WebhookRegistry(redis);
  }

  /** A new deployment's secret, sealed for its row. */
  newSealedSecret(): string {
    return this.sealer.seal(generateWebhookSecret());
  }

  open(sealed: string): string {
    return this.sealer.open(sealed);
  }

  async onApplicationBootstrap(): Promise<void> {
    // Redis may have lost the registry (a flush, a new instance): every start rewrites it.
    await this.publishAll().catch((error: unknown) => this.logger.error({ err: error }, 'webhook registry resync failed'));
    if (this.env.WEBHOOK_REGISTRY_RESYNC_SECONDS > 0) {
      this.resyncTimer = setInterval(() => {
        this.publishAll().catch((error: unknown) => this.logger.warn({ err: error }, 'webhook registry resync failed'));
      }, this.env.WEBHOOK_REGISTRY_RESYNC_SECONDS * 1000);
      this.resyncTimer.unref();
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.resyncTimer);
  }

  async view(workspaceId: string, deploymentName: string): Promise<WebhookSecretView> {
    return this.toView(await this.findDeployment(workspaceId, deploymentName));
  }

  /**
   * A new current secret; the old one keeps authenticating triggers and signing
   * callbacks for the overlap, so callers can switch without losing a delivery.
   */
  async rotate(workspaceId: string, deploymentName: string, overlapSeconds = this.env.WEBHOOK_SECRET_OVERLAP_SECONDS): Promise<WebhookSecretView> {
    const deployment = await this.dataSource.transaction(async (manager) => {
      const found = await manager.findOne(PromptDeploymentEntity, { where: { workspaceId, name: deploymentName }, lock: { mode: 'pessimistic_write' } });
      if (!found) throw new WaggleException('resource_not_found', { message: `Deployment not found: ${deploymentName}` });
      found.previousWebhookSecretSealed = overlapSeconds > 0 ? found.webhookSecretSealed : null;
      found.previousSecretExpiresAt = overlapSeconds > 0 ? new Date(Date.now() + overlapSeconds * 1000) : null;
      found.webhookSecretSealed = this.newSealedSecret();
      return manager.save(found);
    });
    await this.publish([deployment.id]);
    this.logger.log({ msg: 'webhook secret rotated', deployment_id: deployment.id, overlap_seconds: overlapSeconds });
    return this.toView(deployment);
  }

  /** Rewrites the registry entries of these deployments from the database; answers how many exist. */
  async publish(deploymentIds: string[]): Promise<number> {
    if (deploymentIds.length === 0) return 0;
    const deployments = await this.dataSource.getRepository(PromptDeploymentEntity).findBy({ id: In(deploymentIds) });
    const variants = await this.dataSource.getRepository(PromptVariantEntity).find({ where: { deploymentId: In(deploymentIds) }, relations: { currentVersion: true } });
    await this.registry.put(...deployments.map((deployment) => this.targetOf(deployment, variants.filter((variant) => variant.deploymentId === deployment.id))));
    return deployments.length;
  }

  async publishAll(): Promise<number> {
    const repository = this.dataSource.getRepository(PromptDeploymentEntity);
    let published = 0;
    for (let skip = 0; ; skip += RESYNC_BATCH) {
      const page = await repository.find({ select: { id: true }, order: { id: 'ASC' }, skip, take: RESYNC_BATCH });
      if (page.length === 0) break;
      await this.publish(page.map((deployment) => deployment.id));
      published += page.length;
    }
    return published;
  }

  private targetOf(deployment: PromptDeploymentEntity, variants: PromptVariantEntity[]): WebhookTarget {
    const current = this.sealer.open(deployment.webhookSecretSealed);
    const secrets: WebhookTarget['secrets'] = [{ digest: digestWebhookSecret(current), sealed: deployment.webhookSecretSealed, expires_at: null }];
    if (deployment.previousWebhookSecretSealed && deployment.previousSecretExpiresAt && deployment.previousSecretExpiresAt.getTime() > Date.now()) {
      const previous = this.sealer.open(deployment.previousWebhookSecretSealed);
      secrets.push({ digest: digestWebhookSecret(previous), sealed: deployment.previousWebhookSecretSealed, expires_at: deployment.previousSecretExpiresAt.toISOString() });
    }
    const routes: Record<string, RegisteredPromptVariant> = {};
    for (const variant of variants) {
      if (variant.currentVersion) routes[variant.id] = { name: variant.name, version_id: variant.currentVersion.id, variables: variant.currentVersion.variables };
    }
    return { kind: 'prompt_deployment', id: deployment.id, workspace_id: deployment.workspaceId, secrets, variants: routes };
  }

  private async findDeployment(workspaceId: string, name: string): Promise<PromptDeploymentEntity> {
    const deployment = await this.dataSource.getRepository(PromptDeploymentEntity).findOneBy({ workspaceId, name });
    if (!deployment) throw new WaggleException('resource_not_found', { message: `Deployment not found: ${name}` });
    return deployment;
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
