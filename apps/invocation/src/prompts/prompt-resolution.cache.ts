import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { NatsRpcClient } from '@waggle/platform';
import type { Subscription } from 'nats';
import type { PromptDeploymentEntity } from './entities/prompt-deployment.entity';
import type { PromptVariantEntity } from './entities/prompt-variant.entity';
import type { PromptVersionEntity } from './entities/prompt-version.entity';

/** Published to every invocation replica after an apply changed a workspace's prompts. */
export const PROMPTS_CHANGED_SUBJECT = 'invocation.prompts.changed';

/** A backstop: a replica that missed the change message still catches up. */
const ENTRY_TTL_MS = 60_000;

export interface ResolvedPrompt {
  deployment: PromptDeploymentEntity;
  variant: PromptVariantEntity;
  version: PromptVersionEntity;
}

/**
 * Which version a (workspace, deployment, variant) runs, kept in memory: versions are
 * immutable and only an apply moves a variant, so every run need not ask the database.
 * An apply clears the workspace's entries here at once and, through NATS, on every
 * other replica.
 */
@Injectable()
export class PromptResolutionCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly entries = new Map<string, { workspaceId: string; resolved: Promise<ResolvedPrompt>; expiresAt: number }>();
  private subscription?: Subscription;

  constructor(@Inject(NatsRpcClient) private readonly rpc: NatsRpcClient) {}

  onApplicationBootstrap(): void {
    this.subscription = this.rpc.subscribe<{ workspace_id: string }>(PROMPTS_CHANGED_SUBJECT, ({ workspace_id: workspaceId }) =>
      this.forgetWorkspace(workspaceId),
    );
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  get(workspaceId: string, deployment: string, variant: string, load: () => Promise<ResolvedPrompt>): Promise<ResolvedPrompt> {
    const key = JSON.stringify([workspaceId, deployment, variant]);
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.resolved;
    const resolved = load();
    this.entries.set(key, { workspaceId, resolved, expiresAt: now + ENTRY_TTL_MS });
    // Only answers are kept: a deployment created later must be found at once.
    resolved.catch(() => this.entries.delete(key));
    return resolved;
  }

  /** Called after an apply commits: here at once, elsewhere through NATS. */
  changed(workspaceId: string): void {
    this.forgetWorkspace(workspaceId);
    this.rpc.publish(PROMPTS_CHANGED_SUBJECT, { workspace_id: workspaceId });
  }

  private forgetWorkspace(workspaceId: string): void {
    for (const [key, entry] of this.entries) if (entry.workspaceId === workspaceId) this.entries.delete(key);
  }
}
