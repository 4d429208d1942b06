import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { NatsRpcClient } from '@waggle/platform';
import { LRUCache } from 'lru-cache';
import type { Subscription } from 'nats';
import { PromptsRepository, type PinnedPromptIds, type ResolvedPrompt } from './prompts.repository';

/** Published to every invocation replica after an apply changed a workspace's prompts. */
export const PROMPTS_CHANGED_SUBJECT = 'invocation.prompts.changed';

/** A backstop: a replica that missed the change message still catches up. */
const ENTRY_TTL_MS = 60_000;

/**
 * Which version a run uses, kept in memory. Versions are immutable and only an apply moves
 * a variant, so every run need not ask the database: an apply clears the workspace's
 * entries here at once and, through NATS, on every other replica. A trigger's pinned
 * version never changes at all.
 */
@Injectable()
export class PromptResolutionCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly current = new Map<string, { workspaceId: string; resolved: Promise<ResolvedPrompt>; expiresAt: number }>();
  private readonly pinnedPrompts = new LRUCache<string, ResolvedPrompt>({ max: 1_000 });
  private subscription?: Subscription;

  constructor(
    private readonly prompts: PromptsRepository,
    @Inject(NatsRpcClient) private readonly rpc: NatsRpcClient,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = this.rpc.subscribe<{ workspace_id: string }>(PROMPTS_CHANGED_SUBJECT, ({ workspace_id: workspaceId }) =>
      this.forgetWorkspace(workspaceId),
    );
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  /** The variant's current version (resource_not_found for an unknown deployment or variant). */
  resolve(workspaceId: string, deployment: string, variant: string): Promise<ResolvedPrompt> {
    const key = JSON.stringify([workspaceId, deployment, variant]);
    const now = Date.now();
    const cached = this.current.get(key);
    if (cached && cached.expiresAt > now) return cached.resolved;
    const resolved = this.prompts.resolve(workspaceId, deployment, variant);
    this.current.set(key, { workspaceId, resolved, expiresAt: now + ENTRY_TTL_MS });
    // Only answers are kept: a deployment created later must be found at once.
    resolved.catch(() => this.current.delete(key));
    return resolved;
  }

  /** The version a webhook trigger pinned. */
  async pinned(ids: PinnedPromptIds): Promise<ResolvedPrompt> {
    const key = `${ids.deploymentId}/${ids.variantId}/${ids.versionId}`;
    const cached = this.pinnedPrompts.get(key);
    if (cached && cached.deployment.workspaceId === ids.workspaceId) return cached;
    const resolved = await this.prompts.pinned(ids);
    this.pinnedPrompts.set(key, resolved);
    return resolved;
  }

  /** Called after an apply commits: here at once, elsewhere through NATS. */
  changed(workspaceId: string): void {
    this.forgetWorkspace(workspaceId);
    this.rpc.publish(PROMPTS_CHANGED_SUBJECT, { workspace_id: workspaceId });
  }

  private forgetWorkspace(workspaceId: string): void {
    for (const [key, entry] of this.current) if (entry.workspaceId === workspaceId) this.current.delete(key);
  }
}
