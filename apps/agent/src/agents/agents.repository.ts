import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { WaggleException } from '@waggle/errors';
import { In, type DataSource, type EntityManager } from 'typeorm';
import { AgentKnowledgeBaseEntity } from './entities/agent-knowledge-base.entity';
import { AgentEntity } from './entities/agent.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `id` can name an agent at all: anything else is simply not found (and never reaches PostgreSQL's uuid parser). */
export function isAgentId(id: string): boolean {
  return UUID.test(id);
}

/**
 * decisions: an unknown, deleted or other-workspace agent answers 422 `resource_not_found`
 * "Agent not found", on the management routes and on invoke alike.
 */
export function agentNotFound(): WaggleException {
  return new WaggleException('resource_not_found', { status: 422, detail: 'agent_not_found' });
}

/** What a new agent row holds; the id and times are the database's. */
export type NewAgent = Omit<AgentEntity, 'id' | 'createdAt' | 'updatedAt' | 'deletedAt'>;

export interface FindOptions {
  /** Runs inside the caller's transaction (see `transaction`). */
  manager?: EntityManager;
  /** Holds the row against concurrent writers until the transaction ends. */
  lock?: boolean;
}

/**
 * Every query of agents. Only active agents are ever found: a deleted agent's row has
 * `deleted_at` set, which every TypeORM find leaves out.
 */
@Injectable()
export class AgentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** The workspace's active agent with this id, or null (also for an id that is not a UUID, or another workspace's agent). */
  findActive(workspaceId: string, agentId: string, options: FindOptions = {}): Promise<AgentEntity | null> {
    if (!isAgentId(agentId)) return Promise.resolve(null);
    const manager = options.manager ?? this.dataSource.manager;
    return manager.findOne(AgentEntity, {
      where: { id: agentId, workspaceId },
      ...(options.lock && { lock: { mode: 'pessimistic_write' as const } }),
    });
  }

  /** As findActive, but a missing agent is 422 "Agent not found" (agentNotFound). */
  async getActive(workspaceId: string, agentId: string, options: FindOptions = {}): Promise<AgentEntity> {
    const agent = await this.findActive(workspaceId, agentId, options);
    if (!agent) throw agentNotFound();
    return agent;
  }

  /** An active agent by id alone, whatever its workspace: for callers that know only the id (a webhook trigger). */
  findActiveById(agentId: string): Promise<AgentEntity | null> {
    if (!isAgentId(agentId)) return Promise.resolve(null);
    return this.dataSource.getRepository(AgentEntity).findOneBy({ id: agentId });
  }

  findActiveByIds(agentIds: string[]): Promise<AgentEntity[]> {
    const ids = agentIds.filter(isAgentId);
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.getRepository(AgentEntity).findBy({ id: In(ids) });
  }

  /** The workspace's active agents, oldest first. */
  listActive(workspaceId: string): Promise<AgentEntity[]> {
    return this.dataSource.getRepository(AgentEntity).find({ where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async insert(agent: NewAgent): Promise<AgentEntity> {
    const repository = this.dataSource.getRepository(AgentEntity);
    return repository.save(repository.create(agent));
  }

  save(manager: EntityManager, agent: AgentEntity): Promise<AgentEntity> {
    return manager.save(AgentEntity, agent);
  }

  /**
   * Writes an agent's webhook secrets without touching `updated_at`: the secret is not part
   * of the agent record, so rotating it is not an update of the agent.
   */
  async saveWebhookSecrets(manager: EntityManager, agent: AgentEntity): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(AgentEntity)
      .set({
        webhookSecretSealed: agent.webhookSecretSealed,
        previousWebhookSecretSealed: agent.previousWebhookSecretSealed,
        previousSecretExpiresAt: agent.previousSecretExpiresAt,
        updatedAt: () => '"updated_at"',
      })
      .where('id = :id', { id: agent.id })
      .execute();
  }

  /** Marks the workspace's active agent deleted; false when there was none. */
  async softDelete(workspaceId: string, agentId: string): Promise<boolean> {
    if (!isAgentId(agentId)) return false;
    // Only a row not deleted yet: deleting twice must not move deleted_at, nor answer as a delete.
    const result = await this.dataSource
      .createQueryBuilder()
      .softDelete()
      .from(AgentEntity)
      .where('id = :agentId AND workspace_id = :workspaceId AND deleted_at IS NULL', { agentId, workspaceId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** One page of every active agent's id, in a stable order. */
  async activeIdsPage(skip: number, take: number): Promise<string[]> {
    const page = await this.dataSource.getRepository(AgentEntity).find({ select: { id: true }, order: { id: 'ASC' }, skip, take });
    return page.map((agent) => agent.id);
  }

  /** The knowledge bases attached to the agent, in the order they were attached. */
  async knowledgeBaseIds(agentId: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const rows = await manager.find(AgentKnowledgeBaseEntity, { where: { agentId }, order: { createdAt: 'ASC', knowledgeBaseId: 'ASC' } });
    return rows.map((row) => row.knowledgeBaseId);
  }

  /** Replaces the agent's attached knowledge bases, in the given order, inside the caller's transaction. */
  async replaceKnowledgeBases(manager: EntityManager, agentId: string, knowledgeBaseIds: readonly string[]): Promise<void> {
    await manager.delete(AgentKnowledgeBaseEntity, { agentId });
    if (knowledgeBaseIds.length === 0) return;
    // One statement, with increasing times so the order attached is the order listed.
    await manager.query(
      `INSERT INTO agent.agent_knowledge_bases (agent_id, knowledge_base_id, created_at)
       SELECT $1, id, now() + (ordinality * interval '1 microsecond') FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, ordinality)`,
      [agentId, knowledgeBaseIds],
    );
  }
}
