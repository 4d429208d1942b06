import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import { WaggleException } from '@waggle/errors';
import { In, type DataSource } from 'typeorm';
import { AgentKnowledgeBaseEntity } from './entities/agent-knowledge-base.entity';
import { AgentEntity } from './entities/agent.entity';
import type { RunnableAgent } from './runnable-agents';

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
  /** Holds the row against concurrent writers until the transaction ends (call inside `transaction`). */
  lock?: boolean;
}

/** An agent's row as a run reads it, with its attached knowledge bases. */
type RunnableAgentRow = Pick<
  RowOf<AgentEntity>,
  | 'id'
  | 'workspace_id'
  | 'name'
  | 'llm_model'
  | 'instruction_prompt'
  | 'temperature'
  | 'max_token'
  | 'max_thinking_token'
  | 'provider_prompt_cache_ttl'
  | 'reasoning_effort'
  | 'tool_choice'
  | 'max_tool_calls'
  | 'fallbacks'
  | 'response_format'
  | 'mcp'
  | 'credentials'
> & { knowledge_base_ids: string[] };

const SQL = defineSql(__filename, {
  runnable: sql<RunnableAgentRow>(`
    SELECT "id", "workspace_id", "name", "llm_model", "instruction_prompt", "temperature", "max_token", "max_thinking_token",
      "provider_prompt_cache_ttl", "reasoning_effort", "tool_choice", "max_tool_calls", "fallbacks", "response_format", "mcp", "credentials",
      ARRAY(
        SELECT k."knowledge_base_id"::text FROM "agent"."agent_knowledge_bases" k
        WHERE k."agent_id" = a."id" ORDER BY k."created_at", k."knowledge_base_id"
      ) AS "knowledge_base_ids"
    FROM "agent"."agents" a
    WHERE "id" = $1 AND "workspace_id" = $2 AND "deleted_at" IS NULL`),
  // Leaves `updated_at` alone: the secret is not part of the agent record.
  saveWebhookSecrets: sql(`
    UPDATE "agent"."agents"
    SET "webhook_secret_sealed" = $2, "previous_webhook_secret_sealed" = $3, "previous_secret_expires_at" = $4
    WHERE "id" = $1`),
  // Only a row not deleted yet: deleting twice must not move deleted_at, nor answer as a delete.
  softDelete: sql(`
    UPDATE "agent"."agents" SET "deleted_at" = CURRENT_TIMESTAMP, "updated_at" = CURRENT_TIMESTAMP
    WHERE "id" = $1 AND "workspace_id" = $2 AND "deleted_at" IS NULL`),
  /** The workspace's agents offered as MCP tools, oldest first. */
  published: sql<Pick<RowOf<AgentEntity>, 'id' | 'name' | 'description' | 'publish'>>(`
    SELECT "id", "name", "description", "publish" FROM "agent"."agents"
    WHERE "workspace_id" = $1 AND "deleted_at" IS NULL AND ("publish" ->> 'mcp')::boolean IS TRUE
    ORDER BY "created_at", "id"`),
  /**
   * Held until the transaction ends by whatever changes which agents a workspace publishes
   * under which tool names, so two concurrent saves cannot both take one name.
   */
  lockMcpToolNames: sql(`SELECT pg_advisory_xact_lock(hashtextextended('agent.mcp-tools:' || $1::text, 0))`),
  detachKnowledgeBases: sql(`DELETE FROM "agent"."agent_knowledge_bases" WHERE "agent_id" = $1`),
  // Increasing times, so the order attached is the order listed.
  attachKnowledgeBases: sql(`
    INSERT INTO "agent"."agent_knowledge_bases" ("agent_id", "knowledge_base_id", "created_at")
    SELECT $1::uuid, t."id", now() + (t."ordinality" * interval '1 microsecond')
    FROM unnest($2::uuid[]) WITH ORDINALITY AS t("id", "ordinality")`),
});

/**
 * Every query of agents and their attached knowledge bases. Only active agents are ever
 * found: a deleted agent's row has `deleted_at` set, which every TypeORM find leaves out.
 */
@Injectable()
export class AgentsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The workspace's active agent with this id, or null (also for an id that is not a UUID, or another workspace's agent). */
  findActive(workspaceId: string, agentId: string, options: FindOptions = {}): Promise<AgentEntity | null> {
    if (!isAgentId(agentId)) return Promise.resolve(null);
    return this.table(AgentEntity).findOne({
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
    return this.table(AgentEntity).findOneBy({ id: agentId });
  }

  findActiveByIds(agentIds: string[]): Promise<AgentEntity[]> {
    const ids = agentIds.filter(isAgentId);
    if (ids.length === 0) return Promise.resolve([]);
    return this.table(AgentEntity).findBy({ id: In(ids) });
  }

  /** The ids of the workspace's active agents with this name (at most two: enough to tell a unique name). */
  async activeIdsNamed(workspaceId: string, name: string): Promise<string[]> {
    const agents = await this.table(AgentEntity).find({ select: { id: true }, where: { workspaceId, name }, take: 2 });
    return agents.map((agent) => agent.id);
  }

  /** The workspace's active agents, oldest first. */
  listActive(workspaceId: string): Promise<AgentEntity[]> {
    return this.table(AgentEntity).find({ where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * The workspace's active agent as a run needs it, with its attached knowledge bases, or null
   * (also for an id that is not a UUID): one statement, no entity hydration on the request path.
   */
  async findRunnable(workspaceId: string, agentId: string): Promise<RunnableAgent | null> {
    if (!isAgentId(agentId)) return null;
    const row = await this.row(SQL.runnable, [agentId, workspaceId]);
    return row && toRunnableAgent(row);
  }

  async insert(agent: NewAgent): Promise<AgentEntity> {
    const table = this.table(AgentEntity);
    return table.save(table.create(agent));
  }

  save(agent: AgentEntity): Promise<AgentEntity> {
    return this.table(AgentEntity).save(agent);
  }

  /**
   * Writes an agent's webhook secrets without touching `updated_at`: the secret is not part
   * of the agent record, so rotating it is not an update of the agent.
   */
  async saveWebhookSecrets(agent: AgentEntity): Promise<void> {
    await this.execute(SQL.saveWebhookSecrets, [
      agent.id,
      agent.webhookSecretSealed,
      agent.previousWebhookSecretSealed,
      agent.previousSecretExpiresAt,
    ]);
  }

  /** Marks the workspace's active agent deleted; false when there was none. */
  async softDelete(workspaceId: string, agentId: string): Promise<boolean> {
    if (!isAgentId(agentId)) return false;
    return (await this.execute(SQL.softDelete, [agentId, workspaceId])) > 0;
  }

  /** One page of every active agent's id, in a stable order. */
  async activeIdsPage(skip: number, take: number): Promise<string[]> {
    const page = await this.table(AgentEntity).find({ select: { id: true }, order: { id: 'ASC' }, skip, take });
    return page.map((agent) => agent.id);
  }

  /** The workspace's active agents published as MCP tools, oldest first. */
  published(workspaceId: string): Promise<Array<Pick<AgentEntity, 'id' | 'name' | 'description' | 'publish'>>> {
    return this.rows(SQL.published, [workspaceId]);
  }

  /** Serializes the workspace's changes of published tool names (call inside `transaction`). */
  async lockMcpToolNames(workspaceId: string): Promise<void> {
    await this.execute(SQL.lockMcpToolNames, [workspaceId]);
  }

  /** The knowledge bases attached to the agent, in the order they were attached. */
  async knowledgeBaseIds(agentId: string): Promise<string[]> {
    const rows = await this.table(AgentKnowledgeBaseEntity).find({
      where: { agentId },
      order: { createdAt: 'ASC', knowledgeBaseId: 'ASC' },
    });
    return rows.map((row) => row.knowledgeBaseId);
  }

  /** Replaces the agent's attached knowledge bases, in the given order, all or nothing. */
  replaceKnowledgeBases(agentId: string, knowledgeBaseIds: readonly string[]): Promise<void> {
    return this.transaction(async () => {
      await this.execute(SQL.detachKnowledgeBases, [agentId]);
      if (knowledgeBaseIds.length > 0) await this.execute(SQL.attachKnowledgeBases, [agentId, knowledgeBaseIds]);
    });
  }
}

function toRunnableAgent(row: RunnableAgentRow): RunnableAgent {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    llmModel: row.llm_model,
    instructionPrompt: row.instruction_prompt,
    temperature: row.temperature,
    maxToken: row.max_token,
    maxThinkingToken: row.max_thinking_token,
    providerPromptCacheTtl: row.provider_prompt_cache_ttl,
    reasoningEffort: row.reasoning_effort,
    toolChoice: row.tool_choice,
    maxToolCalls: row.max_tool_calls,
    fallbacks: row.fallbacks,
    responseFormat: row.response_format,
    mcp: row.mcp,
    credentials: row.credentials,
    knowledgeBaseIds: row.knowledge_base_ids,
  };
}
