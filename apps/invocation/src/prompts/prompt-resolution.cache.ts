import { Injectable } from '@nestjs/common';
import { BroadcastCache, NatsRpcClient } from '@waggle/platform';
import { WaggleException } from '@waggle/errors';
import { LRUCache } from 'lru-cache';
import { PromptsRepository, type PinnedPromptIds, type ResolvedPrompt } from './prompts.repository';

/** Which version of a variant a run asks for; none: the deployed one. */
export interface VersionSelector {
  version?: number;
  label?: string;
}

/** Published to every invocation replica after an apply changed a workspace's prompts. */
export const PROMPTS_CHANGED_SUBJECT = 'invocation.prompts.changed';

/**
 * Which version a run uses, kept in memory. Versions are immutable and only an apply moves
 * a variant, so every run need not ask the database: an apply clears the workspace's
 * entries here at once and, through NATS, on every other replica (a minute is the
 * backstop). A trigger's pinned version never changes at all.
 */
@Injectable()
export class PromptResolutionCache extends BroadcastCache<ResolvedPrompt> {
  private readonly pinnedPrompts = new LRUCache<string, ResolvedPrompt>({ max: 1_000 });

  constructor(
    private readonly prompts: PromptsRepository,
    rpc: NatsRpcClient,
  ) {
    super(rpc, { subject: PROMPTS_CHANGED_SUBJECT, scopeField: 'workspace_id', ttlMs: 60_000, maxScopes: 1_000 });
  }

  /** The variant's current version (resource_not_found for an unknown deployment or variant). */
  resolve(workspaceId: string, deployment: string, variant: string): Promise<ResolvedPrompt> {
    return this.read(workspaceId, JSON.stringify([deployment, variant]), () => this.prompts.resolve(workspaceId, deployment, variant));
  }

  /**
   * The version a run of (deployment, variant) serves for a selector (the spec's decisions:
   * invoke additions): a pinned `version` number, or the deployed one when none is named.
   * Versions are immutable, so a pinned one is cached like a trigger's.
   */
  async resolveAt(workspaceId: string, deployment: string, variant: string, selector: VersionSelector = {}): Promise<ResolvedPrompt> {
    const deployed = await this.resolve(workspaceId, deployment, variant);
    if (selector.version === undefined || selector.version === deployed.version.version) return deployed;
    const key = `${deployed.variant.id}#${selector.version}`;
    const cached = this.pinnedPrompts.get(key);
    if (cached && cached.deployment.workspaceId === workspaceId) return cached;
    const version = await this.prompts.versionNumbered(deployed.variant.id, selector.version);
    if (!version)
      throw new WaggleException('resource_not_found', {
        detail: 'variant_version_not_found',
        params: { name: `${deployment}/${variant}`, version: selector.version },
      });
    const resolved = { ...deployed, version };
    this.pinnedPrompts.set(key, resolved);
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
}
