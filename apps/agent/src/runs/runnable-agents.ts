import { Injectable } from '@nestjs/common';
import { BroadcastCache, NatsRpcClient } from '@waggle/platform';
import { RunsRepository, type RunnableAgent } from './runs.repository';

/**
 * Published to every agent replica when an agent changes or is deleted: each forgets what it
 * held of it, so a run never uses settings older than the change (nor a deleted agent) once
 * the message has arrived, milliseconds after the change was committed.
 */
export const AGENT_CHANGED_SUBJECT = 'agent.agents.changed';

export interface AgentChangedMessage {
  agent_id: string;
}

/**
 * The agents runs use, kept in memory so an invoke does not wait for PostgreSQL: the
 * agent's row is read once and forgotten on every change (AGENT_CHANGED_SUBJECT) or after
 * a minute. Agents that are not found are not kept: a new agent runs at once.
 */
@Injectable()
export class RunnableAgents extends BroadcastCache<RunnableAgent> {
  constructor(
    private readonly runs: RunsRepository,
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
    return this.read(agentId, workspaceId, () => this.runs.agent(workspaceId, agentId));
  }
}
