import { Injectable, Logger } from '@nestjs/common';
import type { AgentRecord, CreateAgentFields, McpSelection, McpToolDescriptor, ModelRoute, UpdateAgentFields } from '@waggle/contracts';
import { errorMessage, nestedMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import { WorkspaceMcpServers } from '../mcp-servers/workspace-mcp-servers';
import { agentToolDescriptor, agentToolName } from './agent-mcp-tools';
import { AgentModels } from './agent-models';
import { settingsOfCreate, settingsOfUpdate, toAgentRecord } from './agent-record';
import { AgentWebhookSecrets } from './agent-webhook-secrets.service';
import { agentNotFound, AgentsRepository } from './agents.repository';
import type { AgentEntity } from './entities/agent.entity';
import { RunnableAgents } from './runnable-agents';

/**
 * Agents of a workspace: create, read, list, update and (soft) delete. Every read is scoped
 * to the workspace, and only active agents are ever found, so another workspace's agent and
 * a deleted one answer alike: 422 "Agent not found".
 */
@Injectable()
export class AgentsService {
  private readonly logger = new Logger(AgentsService.name);

  constructor(
    private readonly agents: AgentsRepository,
    private readonly models: AgentModels,
    private readonly secrets: AgentWebhookSecrets,
    /** Told of every change, so no replica runs the agent with what the change replaced. */
    private readonly runnable: RunnableAgents,
    private readonly mcpServers: WorkspaceMcpServers,
  ) {}

  async list(workspaceId: string): Promise<AgentRecord[]> {
    return (await this.agents.listActive(workspaceId)).map(toAgentRecord);
  }

  async get(workspaceId: string, agentId: string): Promise<AgentRecord> {
    return toAgentRecord(await this.getActive(workspaceId, agentId));
  }

  /** The workspace's active agent, for whatever runs it (invoke, webhook trigger); otherwise 422 "Agent not found". */
  getActive(workspaceId: string, agentId: string): Promise<AgentEntity> {
    return this.agents.getActive(workspaceId, agentId);
  }

  /** A new agent with its own webhook secret, published to the registry before the answer so it can be triggered at once. */
  async create(workspaceId: string, fields: CreateAgentFields): Promise<AgentRecord> {
    const settings = settingsOfCreate(fields);
    const primary = await this.models.check(settings.llmModel, settings.modelType);
    await this.models.checkFallbacks(primary, settings.llmModel, settings.fallbacks, settings.responseFormat !== null);
    await this.checkMcpServers(workspaceId, settings.mcp);
    const secrets = this.secrets.newSecrets();
    const insert = () =>
      this.agents.insert({
        workspaceId,
        ...settings,
        webhookSecretSealed: secrets.current,
        previousWebhookSecretSealed: secrets.previous,
        previousSecretExpiresAt: secrets.previousExpiresAt,
      });
    const agent =
      agentToolName(settings) === null
        ? await insert()
        : await this.agents.transaction(async () => {
            await this.checkToolName(workspaceId, null, settings);
            return insert();
          });
    // The agent exists once its row does: should the registry not take its target now, the
    // gateway's first trigger asks for it again (republish) and every resync writes it.
    await this.secrets
      .publish([agent.id])
      .catch((error: unknown) =>
        this.logger.warn({ err: error, agent_id: agent.id }, 'the webhook target of a new agent could not be published yet'),
      );
    this.logger.log({ msg: 'agent created', agent_id: agent.id });
    return toAgentRecord(agent);
  }

  /**
   * Changes the fields the update names. When it names the model or its type, the pair the
   * agent would have is checked against the catalog, under the row's lock, so a concurrent
   * update cannot mix an unchecked pair; an update that names neither does not ask the
   * catalog (a model deprecated since the agent was made does not block renaming it). The
   * fallbacks the agent would have are checked likewise when the update names the model,
   * the fallbacks or the response format: what each must be able to do depends on all three.
   */
  async update(workspaceId: string, agentId: string, fields: UpdateAgentFields): Promise<AgentRecord> {
    const changes = settingsOfUpdate(fields);
    await this.checkMcpServers(workspaceId, changes.mcp);
    const updated = await this.agents.transaction(async () => {
      const agent = await this.agents.getActive(workspaceId, agentId, { lock: true });
      const llmModel = changes.llmModel ?? agent.llmModel;
      let primary: ModelRoute | null | undefined;
      if (changes.llmModel !== undefined || changes.modelType !== undefined) {
        primary = await this.models.check(llmModel, changes.modelType ?? agent.modelType);
      }
      const fallbacks = changes.fallbacks ?? agent.fallbacks;
      const responseFormat = changes.responseFormat === undefined ? agent.responseFormat : changes.responseFormat;
      const needsCheck = changes.llmModel !== undefined || changes.fallbacks !== undefined || changes.responseFormat !== undefined;
      if (needsCheck && fallbacks.length > 0)
        await this.models.checkFallbacks(primary ?? (await this.models.route(llmModel)), llmModel, fallbacks, responseFormat !== null);
      // A rename changes a published agent's default tool name too.
      if (changes.publish !== undefined || changes.name !== undefined)
        await this.checkToolName(workspaceId, agent.id, {
          name: changes.name ?? agent.name,
          publish: changes.publish === undefined ? agent.publish : changes.publish,
        });
      return this.agents.save(Object.assign(agent, changes));
    });
    this.runnable.changed(updated.id);
    return toAgentRecord(updated);
  }

  /** 422 naming each `mcp[i].server` that is not a server of the workspace (the spec's decisions, MCP: agents and steps). */
  private async checkMcpServers(workspaceId: string, mcp: McpSelection[] | null | undefined): Promise<void> {
    if (!mcp || mcp.length === 0) return;
    const unknown = new Set(
      await this.mcpServers.unregistered(
        workspaceId,
        mcp.map((entry) => entry.server),
      ),
    );
    if (unknown.size === 0) return;
    const problems = mcp.flatMap((entry, index) =>
      unknown.has(entry.server)
        ? [{ detail: 'validation_mcp_server_unknown' as const, params: { field: `mcp[${index}].server`, server: entry.server } }]
        : [],
    );
    throw new WaggleException('validation_error', {
      ...problems[0],
      details: problems.map((problem) => ({ field: `agent.${problem.params.field}`, messages: [nestedMessage(problem)] })),
    });
  }

  /** The workspace's published agents as MCP tools, oldest first. */
  async mcpTools(workspaceId: string): Promise<McpToolDescriptor[]> {
    return (await this.agents.published(workspaceId)).flatMap((agent) => agentToolDescriptor(agent) ?? []);
  }

  /**
   * A tool name is unique in the workspace (the spec's decisions, MCP): among its agents this
   * service refuses a second one (422 naming the field); against prompts and workflows, which
   * other services own, the tool list keeps the first. Runs inside the save's transaction,
   * under the workspace's lock of tool names, so concurrent saves cannot both take one.
   */
  private async checkToolName(workspaceId: string, agentId: string | null, agent: Pick<AgentEntity, 'name' | 'publish'>): Promise<void> {
    const name = agentToolName(agent);
    if (name === null) return;
    await this.agents.lockMcpToolNames(workspaceId);
    const taken = (await this.agents.published(workspaceId)).find((other) => other.id !== agentId && agentToolName(other) === name);
    if (!taken) return;
    const text: ErrorDetail = { detail: 'mcp_tool_name_taken', params: { name } };
    throw new WaggleException('validation_error', {
      ...text,
      details: [{ field: 'agent.publish.tool_name', messages: [`${errorMessage(text, 'en')} (by agent ${taken.id})`] }],
    });
  }

  /**
   * A soft delete. The registry entry goes first: should the row's update then fail, the
   * agent is still active and its trigger heals through the registry's republish, whereas
   * the other order could leave a deleted agent triggerable.
   */
  async delete(workspaceId: string, agentId: string): Promise<{ id: string }> {
    const agent = await this.getActive(workspaceId, agentId);
    await this.secrets.unpublish(agent.id);
    if (!(await this.agents.softDelete(workspaceId, agent.id))) throw agentNotFound();
    this.runnable.changed(agent.id);
    this.logger.log({ msg: 'agent deleted', agent_id: agent.id });
    return { id: agent.id };
  }
}
