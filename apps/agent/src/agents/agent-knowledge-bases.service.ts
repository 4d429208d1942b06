import { Injectable } from '@nestjs/common';
import { KnowledgeBasePatterns, send, type AgentKnowledgeBases } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import { AgentsRepository } from './agents.repository';
import { RunnableAgents } from './runnable-agents';

/**
 * The knowledge bases an operator attaches to an agent (private route and CLI): its runs get
 * a `knowledge_search` tool over them. Each must be an active knowledge base of the agent's
 * workspace when attached; one deleted later answers its search with an error observation.
 */
@Injectable()
export class AgentKnowledgeBaseLinks {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly rpc: NatsRpcClient,
    private readonly runnable: RunnableAgents,
  ) {}

  async get(workspaceId: string, agentId: string): Promise<AgentKnowledgeBases> {
    const agent = await this.agents.getActive(workspaceId, agentId);
    return { agent_id: agent.id, knowledge_base_ids: await this.agents.knowledgeBaseIds(agent.id) };
  }

  /** Replaces the list; 422 "Knowledge base not found" (from the knowledge-base service) for any that is not the workspace's. */
  async set(workspaceId: string, agentId: string, knowledgeBaseIds: readonly string[]): Promise<AgentKnowledgeBases> {
    await this.agents.getActive(workspaceId, agentId);
    const unique = [...new Set(knowledgeBaseIds.map((id) => id.toLowerCase()))];
    for (const knowledgeBaseId of unique) {
      await send(this.rpc, KnowledgeBasePatterns.getKnowledgeBase, { workspace_id: workspaceId, knowledge_base_id: knowledgeBaseId });
    }
    await this.agents.transaction(async () => {
      // The agent row locked: a concurrent delete or a second set waits for this one.
      await this.agents.getActive(workspaceId, agentId, { lock: true });
      await this.agents.replaceKnowledgeBases(agentId, unique);
    });
    this.runnable.changed(agentId);
    return { agent_id: agentId, knowledge_base_ids: unique };
  }
}
