import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DEPLOYED_POINTER, type PromptVariantSpec, type SplitTarget } from '@waggle/contracts';
import { canonicalJson, requestContext } from '@waggle/platform';
import type { VariantReleases } from '../deployments/deployment-applier';
import type { PromptVariantEntity } from './entities/prompt-variant.entity';
import { PromptReleasesRepository } from './prompt-releases.repository';

/** Who moves a pointer: the API key the private route authenticated, else the operator's CLI (which speaks NATS with no key). */
export function releaseActor(): string {
  const apiKeyId = requestContext.get()?.apiKeyId;
  return apiKeyId ? `api_key:${apiKeyId}` : 'operator';
}

/** A split's targets as stored: each with only the fields it names, in the file's order. */
export function storedTargets(split: readonly SplitTarget[]): SplitTarget[] {
  return split.map((target) => ({
    ...(target.variant !== undefined && { variant: target.variant }),
    ...(target.version !== undefined && { version: target.version }),
    weight: target.weight,
  }));
}

/**
 * What an apply does to a prompt variant's releases (DeploymentApplier): a changed definition is
 * staged when the file says `stage` or the variant is protected; the split is kept on the variant
 * with a new id whenever its targets or weights change; every move of the deployed version an
 * apply makes is in the history.
 */
@Injectable()
export class PromptVariantReleases implements VariantReleases<PromptVariantEntity, PromptVariantSpec> {
  constructor(private readonly releases: PromptReleasesRepository) {}

  staging(variant: PromptVariantEntity, spec: PromptVariantSpec): 'requested' | 'protected' | null {
    if (variant.protection?.protected) return 'protected';
    return spec.stage ? 'requested' : null;
  }

  async settle(_workspaceId: string, variant: PromptVariantEntity, spec: PromptVariantSpec): Promise<boolean> {
    const targets = spec.split ? storedTargets(spec.split) : null;
    const stored = variant.split?.targets ?? null;
    if (canonicalJson(targets, 'code-unit') === canonicalJson(stored, 'code-unit')) return false;
    // A new id deals the buckets again: users are reassigned only when the split itself changed.
    await this.releases.setSplit(variant.id, targets && { id: randomUUID(), targets });
    return true;
  }

  async moved(workspaceId: string, variant: PromptVariantEntity, from: number | null, to: number): Promise<void> {
    await this.releases.record({
      workspaceId,
      variantId: variant.id,
      pointer: DEPLOYED_POINTER,
      fromVersion: from,
      toVersion: to,
      actor: releaseActor(),
      reason: 'apply',
      experimentRunId: null,
      override: false,
    });
  }
}
