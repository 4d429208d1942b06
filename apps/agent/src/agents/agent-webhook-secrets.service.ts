import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AgentWebhookSecretCheck, AgentWebhookSecretView } from '@waggle/contracts';
import { APP_ENV } from '@waggle/platform';
import { OwnerWebhookSecrets, SecretSealer, WebhookTargetKeeper } from '@waggle/webhooks';
import type { AgentEnv } from '../config/agent.env';
import { agentNotFound, AgentsRepository } from './agents.repository';
import type { AgentEntity } from './entities/agent.entity';

/**
 * Each agent's webhook secret, kept as every webhook owner's is (OwnerWebhookSecrets), and
 * published as the agent's webhook target (kind `agent`); the agent's row is found by id.
 */
@Injectable()
export class AgentWebhookSecrets extends OwnerWebhookSecrets<AgentEntity, AgentWebhookSecretView> {
  constructor(
    private readonly agents: AgentsRepository,
    keeper: WebhookTargetKeeper,
    sealer: SecretSealer,
    @Inject(APP_ENV) env: AgentEnv,
  ) {
    super({
      kind: 'agent',
      keeper,
      sealer,
      overlapSeconds: env.WEBHOOK_SECRET_OVERLAP_SECONDS,
      store: {
        transaction: (work) => agents.transaction(work),
        get: (workspaceId, agentId, options) => agents.getActive(workspaceId, agentId, { lock: options?.lock }),
        // The secret is not part of the agent record: saving it leaves `updated_at` alone.
        saveSecrets: (agent) => agents.saveWebhookSecrets(agent),
        findByIds: (ids) => agents.findActiveByIds(ids),
        idsPage: (skip, take) => agents.activeIdsPage(skip, take),
      },
      view: (agent, secret) => ({ agent_id: agent.id, ...secret }),
      logIdField: 'agent_id',
      logger: new Logger(AgentWebhookSecrets.name),
    });
  }

  /** Whether `presented` is one of the active agent's secrets in force, checked in constant time. */
  async verify(agentId: string, presented: string): Promise<AgentWebhookSecretCheck> {
    const agent = await this.agents.findActiveById(agentId);
    if (!agent) throw agentNotFound();
    const valid = this.accepts(agent, presented);
    return { valid, workspace_id: valid ? agent.workspaceId : null };
  }
}
