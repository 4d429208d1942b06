import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { WorkflowWebhookSecretView } from '@waggle/contracts';
import { APP_ENV } from '@waggle/platform';
import {
  newOwnerSecrets,
  previousSecretExpiry,
  registeredSecrets,
  rotateOwnerSecrets,
  SecretSealer,
  type SealedOwnerSecrets,
  type WebhookTarget,
} from '@waggle/webhooks';
import type { InvocationEnv } from '../../config/invocation.env';
import { WebhookTargetsService, type WebhookTargetSource } from '../../webhooks/webhook-targets.service';
import type { WorkflowDeploymentEntity } from './entities/workflow-deployment.entity';
import { WorkflowDeploymentsRepository } from './workflow-deployments.repository';

function sealedSecretsOf(deployment: WorkflowDeploymentEntity): SealedOwnerSecrets {
  return {
    current: deployment.webhookSecretSealed,
    previous: deployment.previousWebhookSecretSealed,
    previousExpiresAt: deployment.previousSecretExpiresAt,
  };
}

/**
 * Each workflow deployment's webhook secret (decisions: every workflow deployment has its
 * own): sealed in its row, shown and rotated on request, and published as the deployment's
 * webhook target (kind `workflow_deployment`) so the callback-dispatcher signs `workflow.*`
 * callbacks with it without asking this service.
 */
@Injectable()
export class WorkflowWebhookSecrets implements WebhookTargetSource, OnModuleInit {
  readonly kind = 'workflow_deployment';
  private readonly logger = new Logger(WorkflowWebhookSecrets.name);

  constructor(
    private readonly deployments: WorkflowDeploymentsRepository,
    private readonly registry: WebhookTargetsService,
    private readonly sealer: SecretSealer,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /** A new deployment's secrets, sealed for its row. */
  newSecrets(): SealedOwnerSecrets {
    return newOwnerSecrets(this.sealer);
  }

  open(sealed: string): string {
    return this.sealer.open(sealed);
  }

  /** Rewrites the registry entries of these deployments (after an apply or a rotation). */
  publish(deploymentIds: string[]): Promise<number> {
    return this.registry.publish(this.kind, deploymentIds);
  }

  async view(workspaceId: string, deploymentName: string): Promise<WorkflowWebhookSecretView> {
    return this.toView(await this.deployments.getDeployment(workspaceId, deploymentName));
  }

  /**
   * A new current secret; the old one keeps signing callbacks for the overlap
   * (WEBHOOK_SECRET_OVERLAP_SECONDS when the rotation names none), so receivers can switch
   * without rejecting a delivery.
   */
  async rotate(
    workspaceId: string,
    deploymentName: string,
    overlapSeconds = this.env.WEBHOOK_SECRET_OVERLAP_SECONDS,
  ): Promise<WorkflowWebhookSecretView> {
    const deployment = await this.deployments.transaction(async (manager) => {
      const found = await this.deployments.getDeployment(workspaceId, deploymentName, { manager, lock: true });
      const rotated = rotateOwnerSecrets(this.sealer, sealedSecretsOf(found), overlapSeconds);
      found.webhookSecretSealed = rotated.current;
      found.previousWebhookSecretSealed = rotated.previous;
      found.previousSecretExpiresAt = rotated.previousExpiresAt;
      return this.deployments.saveDeployment(manager, found);
    });
    await this.publish([deployment.id]);
    this.logger.log({ msg: 'webhook secret rotated', workflow_deployment_id: deployment.id, overlap_seconds: overlapSeconds });
    return this.toView(deployment);
  }

  /** The deployment's current secret, opened (what a run's answer and callback use). */
  async currentSecret(deploymentId: string): Promise<string | null> {
    const deployment = await this.deployments.findDeploymentById(deploymentId);
    return deployment ? this.sealer.open(deployment.webhookSecretSealed) : null;
  }

  async targets(deploymentIds: string[]): Promise<WebhookTarget[]> {
    const deployments = await this.deployments.findDeploymentsByIds(deploymentIds);
    // `variants` is for prompt triggers only: workflow callbacks need just the secrets.
    return deployments.map((deployment) => ({
      kind: this.kind,
      id: deployment.id,
      workspace_id: deployment.workspaceId,
      secrets: registeredSecrets(this.sealer, sealedSecretsOf(deployment)),
    }));
  }

  idsPage(skip: number, take: number): Promise<string[]> {
    return this.deployments.deploymentIdsPage(skip, take);
  }

  private toView(deployment: WorkflowDeploymentEntity): WorkflowWebhookSecretView {
    return {
      deployment: deployment.name,
      workflow_deployment_id: deployment.id,
      webhook_secret: this.sealer.open(deployment.webhookSecretSealed),
      previous_secret_expires_at: previousSecretExpiry(sealedSecretsOf(deployment))?.toISOString() ?? null,
    };
  }
}
