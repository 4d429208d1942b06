import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { NatsRpcClient } from '@waggle/platform';
import { LRUCache } from 'lru-cache';
import type { Subscription } from 'nats';
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

/** A change message that never arrived (a NATS outage) is covered by this limit. */
const AGENT_CACHE_TTL_MS = 60_000;

/**
 * The agents runs use, kept in memory so an invoke does not wait for PostgreSQL: the
 * agent's row is read once and forgotten on every change (AGENT_CHANGED_SUBJECT) or after
 * a minute. Agents that are not found are not kept: a new agent runs at once.
 */
@Injectable()
export class RunnableAgents implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly cache = new LRUCache<string, RunnableAgent>({ max: 10_000, ttl: AGENT_CACHE_TTL_MS });
  private subscription?: Subscription;

  constructor(
    private readonly runs: RunsRepository,
    private readonly rpc: NatsRpcClient,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = this.rpc.subscribe<AgentChangedMessage>(AGENT_CHANGED_SUBJECT, ({ agent_id: agentId }) => this.forget(agentId));
    if (!this.subscription) throw new Error('NATS is not connected');
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  /** The workspace's active agent, or null. */
  async get(workspaceId: string, agentId: string): Promise<RunnableAgent | null> {
    const cached = this.cache.get(agentId);
    if (cached) return cached.workspaceId === workspaceId ? cached : null;
    const agent = await this.runs.agent(workspaceId, agentId);
    if (agent) this.cache.set(agentId, agent);
    return agent;
  }

  forget(agentId: string): void {
    this.cache.delete(agentId);
  }
}
