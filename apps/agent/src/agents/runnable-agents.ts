import { Injectable } from '@nestjs/common';
import type {
  AgentPromptCacheTtl,
  AgentReasoningEffort,
  AgentToolChoice,
  CredentialSource,
  McpSelection,
  ResponseFormat,
} from '@waggle/contracts';
import { BroadcastCache, NatsRpcClient } from '@waggle/platform';
import { WaggleException } from '@waggle/errors';
import { agentNotFound, AgentsRepository, isAgentId } from './agents.repository';

/**
 * Published to every agent replica when an agent changes or is deleted: each forgets what it
 * held of it, so a run never uses settings older than the change (nor a deleted agent) once
 * the message has arrived, milliseconds after the change was committed.
 */
const AGENT_CHANGED_SUBJECT = 'agent.agents.changed';

interface AgentChangedMessage {
  agent_id: string;
}

/** What a run needs of its agent. */
export interface RunnableAgent {
  id: string;
  workspaceId: string;
  /** Its name, as a run's span names it (invoke_agent {name}). */
  name: string;
  llmModel: string;
  instructionPrompt: string | null;
  temperature: number | null;
  maxToken: number | null;
  maxThinkingToken: number | null;
  providerPromptCacheTtl: AgentPromptCacheTtl | null;
  reasoningEffort: AgentReasoningEffort | null;
  toolChoice: AgentToolChoice | null;
  maxToolCalls: number | null;
  /** Catalog model ids tried in order when `llmModel` is unavailable (D41); empty for none. */
  fallbacks: string[];
  /** The JSON Schema the answer must match (D42). */
  responseFormat: ResponseFormat | null;
  /** The MCP servers whose tools its runs offer, and which tools; null for none. */
  mcp: McpSelection[] | null;
  /** Whose provider keys its runs use. */
  credentials: CredentialSource;
  /** Attached knowledge bases, searched by the `knowledge_search` tool; empty for none. */
  knowledgeBaseIds: string[];
}

/**
 * The agents runs use, kept in memory so an invoke does not wait for PostgreSQL: the
 * agent's row is read once and forgotten on every change (the agents feature calls `changed`
 * after each write commits: AGENT_CHANGED_SUBJECT tells every replica) or after a minute.
 * Agents that are not found are not kept: a new agent runs at once.
 */
@Injectable()
export class RunnableAgents extends BroadcastCache<RunnableAgent> {
  constructor(
    private readonly agents: AgentsRepository,
    rpc: NatsRpcClient,
  ) {
    super(rpc, {
      subject: AGENT_CHANGED_SUBJECT,
      scopeField: 'agent_id' satisfies keyof AgentChangedMessage,
      ttlMs: 60_000,
      maxScopes: 10_000,
    });
  }

  /** The workspace's active agent, or null. */
  get(workspaceId: string, agentId: string): Promise<RunnableAgent | null> {
    return this.read(agentId, workspaceId, () => this.agents.findRunnable(workspaceId, agentId));
  }

  /** As get, but a missing agent is 422 "Agent not found" (what a run answers before anything else). */
  async getActive(workspaceId: string, agentId: string): Promise<RunnableAgent> {
    const agent = await this.get(workspaceId, agentId);
    if (!agent) throw agentNotFound();
    return agent;
  }

  /**
   * As getActive, for the OpenAI-compatible surface: `agent` is the agent's id, or its name when
   * no other active agent of the workspace has it (decisions: model ids). A name two agents
   * share answers as not found, saying so.
   */
  async getActiveByIdOrName(workspaceId: string, agent: string): Promise<RunnableAgent> {
    if (isAgentId(agent)) return this.getActive(workspaceId, agent);
    const ids = await this.agents.activeIdsNamed(workspaceId, agent);
    if (ids.length > 1)
      throw new WaggleException('resource_not_found', { status: 422, detail: 'openai_agent_name_ambiguous', params: { name: agent } });
    if (ids.length === 0) throw agentNotFound();
    return this.getActive(workspaceId, ids[0]);
  }
}
