import { Injectable } from '@nestjs/common';
import { checkVersionSelector, DEPLOYED_POINTER, type ServedSplit, type VersionSelector } from '@waggle/contracts';
import { BroadcastCache, NatsRpcClient } from '@waggle/platform';
import { WaggleException } from '@waggle/errors';
import { LRUCache } from 'lru-cache';
import { splitBucket, splitTargetAt } from '../releases/split-assignment';
import type { PromptVersionEntity } from './entities/prompt-version.entity';
import { PromptsRepository, type PinnedPromptIds, type ResolvedPrompt, type ResolvedVariant } from './prompts.repository';

export type { VersionSelector } from '@waggle/contracts';

/** Published to every invocation replica after an apply changed a workspace's prompts. */
export const PROMPTS_CHANGED_SUBJECT = 'invocation.prompts.changed';

/** The version a run serves, and how it was chosen: the label it named, the split target it fell on. */
export interface ServedPrompt extends ResolvedPrompt {
  label: string | null;
  split: ServedSplit | null;
}

/** Who a split variant's run is assigned for: the caller's `user` (sticky) or, without one, the request (per request). */
export interface SplitAssignment {
  key: string;
  sticky: boolean;
}

/**
 * Which version a run uses, kept in memory. Versions are immutable and only an apply or a
 * release move (promote, rollback, a label) changes what a variant serves, so every run need
 * not ask the database: each of those clears the workspace's entries here at once and, through
 * NATS, on every other replica (a minute is the backstop). A variant's entry holds its deployed
 * version with its labels, split and newest version number (its row), so a label, a pinned
 * version or a split is resolved in memory once the versions it names have been read once.
 */
@Injectable()
export class PromptResolutionCache extends BroadcastCache<ResolvedVariant> {
  private readonly pinnedPrompts = new LRUCache<string, ResolvedPrompt>({ max: 1_000 });
  /** Versions by variant id and number: immutable, so kept across changes. */
  private readonly versions = new LRUCache<string, PromptVersionEntity>({ max: 5_000 });

  constructor(
    private readonly prompts: PromptsRepository,
    rpc: NatsRpcClient,
  ) {
    super(rpc, { subject: PROMPTS_CHANGED_SUBJECT, scopeField: 'workspace_id', ttlMs: 60_000, maxScopes: 1_000 });
  }

  /** The variant's deployed version, with its release pointers (resource_not_found for an unknown deployment or variant). */
  resolve(workspaceId: string, deployment: string, variant: string): Promise<ResolvedVariant> {
    return this.read(workspaceId, JSON.stringify([deployment, variant]), () => this.prompts.resolve(workspaceId, deployment, variant));
  }

  /**
   * The version a run of (deployment, variant) serves (the spec's decisions: invoke additions,
   * splits): a pinned `version` number, a `label`'s version (`latest` the newest, `deployed`
   * the deployed one), or with neither the deployed one, unless the variant is a split and the
   * run is assigned (`assignment`), when the target its bucket falls on serves it.
   */
  async resolveAt(
    workspaceId: string,
    deployment: string,
    variant: string,
    selector: VersionSelector = {},
    assignment?: SplitAssignment,
  ): Promise<ServedPrompt> {
    checkVersionSelector(selector);
    const current = await this.resolve(workspaceId, deployment, variant);
    if (selector.label !== undefined) {
      const number = labelledVersion(current, selector.label);
      if (number === undefined)
        throw new WaggleException('resource_not_found', {
          detail: 'release_label_not_found',
          params: { name: `${deployment}/${variant}`, label: selector.label },
        });
      return { ...(await this.numbered(current, number)), label: selector.label, split: null };
    }
    if (selector.version !== undefined) return { ...(await this.numbered(current, selector.version)), label: null, split: null };
    const split = current.variant.split;
    if (!split || !assignment) return { ...current, label: null, split: null };
    const bucket = splitBucket(split.id, assignment.key);
    const target = splitTargetAt(split.targets, bucket);
    const served =
      target.variant === undefined
        ? await this.numbered(current, target.version ?? current.version.version)
        : await this.resolve(workspaceId, deployment, target.variant);
    return { ...served, label: null, split: { id: split.id, variant: current.variant.name, target, bucket, sticky: assignment.sticky } };
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

  /** Version `number` of the resolved variant, read once (versions never change). */
  private async numbered(current: ResolvedVariant, number: number): Promise<ResolvedPrompt> {
    if (number === current.version.version) return current;
    const key = `${current.variant.id}#${number}`;
    let version = this.versions.get(key);
    if (!version) {
      version = (await this.prompts.versionNumbered(current.variant.id, number)) ?? undefined;
      if (!version)
        throw new WaggleException('resource_not_found', {
          detail: 'variant_version_not_found',
          params: { name: `${current.deployment.name}/${current.variant.name}`, version: number },
        });
      this.versions.set(key, version);
    }
    return { deployment: current.deployment, variant: current.variant, version };
  }
}

/** The version number a label points at, or undefined: `latest` the newest, `deployed` the deployed one, else the variant's own labels. */
export function labelledVersion(current: ResolvedVariant, label: string): number | undefined {
  if (label === 'latest') return current.latestVersion;
  if (label === DEPLOYED_POINTER) return current.version.version;
  // The caller's string names a key of a stored object: only its own keys.
  return Object.hasOwn(current.variant.labels, label) ? current.variant.labels[label] : undefined;
}
