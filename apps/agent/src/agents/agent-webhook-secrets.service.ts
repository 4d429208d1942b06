import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { AgentWebhookSecretCheck, AgentWebhookSecretView } from '@waggle/contracts';
import { APP_ENV } from '@waggle/platform';
import {
  newOwnerSecrets,
  ownerAcceptsSecret,
  previousSecretExpiry,
  registeredSecrets,
  rotateOwnerSecrets,
  SecretSealer,
  type SealedOwnerSecrets,
  type WebhookTarget,
  type WebhookTargetSource,
} from '@waggle/webhooks';
import type { AgentEnv } from '../config/agent.env';
import { WebhookTargetsService } from '../webhooks/webhook-targets.service';
import { agentNotFound, AgentsRepository } from './agents.repository';
import type { AgentEntity } from './entities/agent.entity';

function sealedSecretsOf(agent: AgentEntity): SealedOwnerSecrets {
  return {
    current: agent.webhookSecretSealed,
    previous: agent.previousWebhookSecretSealed,
    previousExpiresAt: agent.previousSecretExpiresAt,
  };
}

/**
 * Each agent's webhook secret (decisions: `whsec_` + base64 of 32 random bytes, rotatable
 * with an overlap): sealed in its row, shown, rotated and verified on request, and
 * published as the agent's webhook target (kind `agent`) for the gateway's trigger guard
 * and the callback-dispatcher.
 */
@Injectable()
export class AgentWebhookSecrets implements WebhookTargetSource, OnModuleInit {
  readonly kind = 'agent';
  private readonly logger = new Logger(AgentWebhookSecrets.name);

  constructor(
    private readonly agents: AgentsRepository,
    private readonly registry: WebhookTargetsService,
    private readonly sealer: SecretSealer,
    @Inject(APP_ENV) private readonly env: AgentEnv,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /** A new agent's secrets, sealed for its row. */
  newSecrets(): SealedOwnerSecrets {
    return newOwnerSecrets(this.sealer);
  }

  /** Writes the agent's registry entry from its row (after a create or a rotation). */
  async publish(agentId: string): Promise<void> {
    await this.registry.publish(this.kind, [agentId]);
  }

  /** Takes a deleted agent's entry out of the registry. */
  unpublish(agentId: string): Promise<void> {
    return this.registry.remove(this.kind, agentId);
  }

  async view(workspaceId: string, agentId: string): Promise<AgentWebhookSecretView> {
    return this.toView(await this.agents.getActive(workspaceId, agentId));
  }

  /**
   * A new current secret; the old one keeps authenticating triggers and signing callbacks
   * for the overlap (WEBHOOK_SECRET_OVERLAP_SECONDS when the rotation names none).
   */
  async rotate(
    workspaceId: string,
    agentId: string,
    overlapSeconds = this.env.WEBHOOK_SECRET_OVERLAP_SECONDS,
  ): Promise<AgentWebhookSecretView> {
    const agent = await this.agents.transaction(async (manager) => {
      const found = await this.agents.getActive(workspaceId, agentId, { manager, lock: true });
      const rotated = rotateOwnerSecrets(this.sealer, sealedSecretsOf(found), overlapSeconds);
      found.webhookSecretSealed = rotated.current;
      found.previousWebhookSecretSealed = rotated.previous;
      found.previousSecretExpiresAt = rotated.previousExpiresAt;
      await this.agents.saveWebhookSecrets(manager, found);
      return found;
    });
    await this.publish(agent.id);
    this.logger.log({ msg: 'webhook secret rotated', agent_id: agent.id, overlap_seconds: overlapSeconds });
    return this.toView(agent);
  }

  /** Whether `presented` is one of the active agent's secrets in force, checked in constant time. */
  async verify(agentId: string, presented: string): Promise<AgentWebhookSecretCheck> {
    const agent = await this.agents.findActiveById(agentId);
    if (!agent) throw agentNotFound();
    const valid = ownerAcceptsSecret(this.sealer, sealedSecretsOf(agent), presented);
    return { valid, workspace_id: valid ? agent.workspaceId : null };
  }

  async targets(agentIds: string[]): Promise<WebhookTarget[]> {
    const agents = await this.agents.findActiveByIds(agentIds);
    return agents.map((agent) => ({
      kind: this.kind,
      id: agent.id,
      workspace_id: agent.workspaceId,
      secrets: registeredSecrets(this.sealer, sealedSecretsOf(agent)),
    }));
  }

  idsPage(skip: number, take: number): Promise<string[]> {
    return this.agents.activeIdsPage(skip, take);
  }

  private toView(agent: AgentEntity): AgentWebhookSecretView {
    return {
      agent_id: agent.id,
      webhook_secret: this.sealer.open(agent.webhookSecretSealed),
      previous_secret_expires_at: previousSecretExpiry(sealedSecretsOf(agent))?.toISOString() ?? null,
    };
  }
}
