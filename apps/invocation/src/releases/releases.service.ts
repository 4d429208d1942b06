import { Injectable } from '@nestjs/common';
import {
  DEPLOYED_POINTER,
  RESERVED_LABELS,
  type PromoteReleaseRequest,
  type ReleaseHistoryEntry,
  type ReleaseMove,
  type ReleaseProtection,
  type ResolveTriggerVersionRequest,
  type RollbackReleaseRequest,
  type SetReleaseProtectionRequest,
  type TriggerVersion,
} from '@waggle/contracts';
import { WaggleException, type FieldDetail } from '@waggle/errors';
import { ReleaseEvidence } from '../experiments/release-evidence';
import { PromptResolutionCache } from '../prompts/prompt-resolution.cache';
import { releaseActor } from '../prompts/prompt-variant-releases';
import { PromptWebhookSecrets } from '../prompts/prompt-webhook-secrets.service';
import { PromptReleasesRepository, type LockedVariant } from '../prompts/prompt-releases.repository';

/** A variant that was never protected. */
export const UNPROTECTED: ReleaseProtection = { protected: false, min_pass_rate: 1, max_age_days: 7 };
const DAY_MS = 24 * 3600_000;

interface Move {
  pointer: string;
  to: number | null;
  reason?: string | null;
  experimentRunId?: string | null;
  override?: boolean;
}

/**
 * The release pointers of prompt variants (the spec's decisions: labels and pointers, release
 * gate): labels set and removed, promotions and rollbacks of the deployed version or a label,
 * protection. Each move is one transaction that locks the variant's row, moves the pointer and
 * appends its history entry, so concurrent moves of one variant serialize; once it commits the
 * workspace's resolutions are forgotten on every replica (and a move of the deployed version
 * republishes the deployment's webhook target, which triggers read).
 */
@Injectable()
export class ReleasesService {
  constructor(
    private readonly releases: PromptReleasesRepository,
    private readonly resolutions: PromptResolutionCache,
    private readonly secrets: PromptWebhookSecrets,
    private readonly evidence: ReleaseEvidence,
  ) {}

  async history(workspaceId: string, deployment: string, variant: string): Promise<ReleaseHistoryEntry[]> {
    const found = await this.found(workspaceId, deployment, variant, (name) => this.releases.variantByName(workspaceId, deployment, name));
    return this.releases.history(found.id);
  }

  async protection(workspaceId: string, deployment: string, variant: string): Promise<ReleaseProtection> {
    const found = await this.found(workspaceId, deployment, variant, (name) => this.releases.variantByName(workspaceId, deployment, name));
    return found.protection ?? UNPROTECTED;
  }

  async protect(request: SetReleaseProtectionRequest): Promise<ReleaseProtection> {
    const protection: ReleaseProtection = {
      protected: request.protected,
      min_pass_rate: request.min_pass_rate ?? UNPROTECTED.min_pass_rate,
      max_age_days: request.max_age_days ?? UNPROTECTED.max_age_days,
    };
    await this.releases.transaction(async () => {
      const variant = await this.locked(request.workspace_id, request.deployment, request.variant);
      await this.releases.setProtection(variant.id, protection);
    });
    this.resolutions.changed(request.workspace_id);
    return protection;
  }

  setLabel(workspaceId: string, deployment: string, variant: string, label: string, version: number): Promise<ReleaseMove> {
    checkLabel(label);
    return this.move(workspaceId, deployment, variant, { pointer: label, to: version });
  }

  deleteLabel(workspaceId: string, deployment: string, variant: string, label: string): Promise<ReleaseMove> {
    checkLabel(label);
    return this.move(workspaceId, deployment, variant, { pointer: label, to: null });
  }

  /** Moves the deployed version (no label, or `deployed`) or a label to a version; the deployed pointer of a protected variant passes the release gate first. */
  promote(request: PromoteReleaseRequest): Promise<ReleaseMove> {
    if (request.override && !request.reason) {
      const problem = { detail: 'release_override_needs_reason' } as const;
      throw new WaggleException('validation_error', { status: 400, ...problem, details: [{ field: 'reason', messages: [problem] }] });
    }
    const pointer = request.label ?? DEPLOYED_POINTER;
    if (pointer !== DEPLOYED_POINTER) checkLabel(pointer);
    return this.move(request.workspace_id, request.deployment, request.variant, {
      pointer,
      to: request.version,
      reason: request.reason ?? null,
      override: request.override ?? false,
    });
  }

  /**
   * Moves the pointer back to where its newest history entry moved it from (a rollback of a
   * rollback goes forward again). Not gated: it returns to a version the pointer already had.
   */
  async rollback(request: RollbackReleaseRequest): Promise<ReleaseMove> {
    const pointer = request.label ?? DEPLOYED_POINTER;
    if (pointer !== DEPLOYED_POINTER) checkLabel(pointer);
    return this.move(
      request.workspace_id,
      request.deployment,
      request.variant,
      { pointer, to: null, reason: request.reason ?? null },
      true,
    );
  }

  /** The version a webhook trigger naming a label or a version pins. */
  async triggerVersion(request: ResolveTriggerVersionRequest): Promise<TriggerVersion> {
    const variant = await this.releases.variantByIds(request.workspace_id, request.prompt_endpoint_id, request.variant_id);
    if (!variant || variant.deployed_version === null) throw new WaggleException('resource_not_found', { detail: 'variant_not_found' });
    const name = `${variant.deployment}/${variant.name}`;
    let number = request.version;
    if (request.label !== undefined) {
      number =
        request.label === 'latest'
          ? (await this.releases.newestVersion(variant.id))?.version
          : request.label === DEPLOYED_POINTER
            ? variant.deployed_version
            : Object.hasOwn(variant.labels, request.label)
              ? variant.labels[request.label]
              : undefined;
      if (number === undefined)
        throw new WaggleException('resource_not_found', { detail: 'release_label_not_found', params: { name, label: request.label } });
    }
    const version = await this.releases.version(variant.id, number ?? variant.deployed_version);
    if (!version)
      throw new WaggleException('resource_not_found', { detail: 'variant_version_not_found', params: { name, version: number ?? 0 } });
    return { version_id: version.id, version: version.version, variables: version.variables };
  }

  /**
   * One move in one transaction: the variant's row locked, the target version checked, the gate
   * passed (the deployed pointer of a protected variant), the pointer moved and its entry
   * appended; then every replica forgets the workspace's resolutions.
   */
  private async move(workspaceId: string, deployment: string, variantName: string, move: Move, rollback = false): Promise<ReleaseMove> {
    const { entry, variant } = await this.releases.transaction(async () => {
      const variant = await this.locked(workspaceId, deployment, variantName);
      const name = `${deployment}/${variantName}`;
      const from = move.pointer === DEPLOYED_POINTER ? variant.deployed_version : (variant.labels[move.pointer] ?? null);
      let to = move.to;
      if (rollback) {
        const [last] = await this.releases.history(variant.id, move.pointer);
        if (!last || last.from === null || last.to !== from)
          throw new WaggleException('release_rollback_unavailable', {
            detail: 'release_nothing_to_roll_back',
            params: { pointer: move.pointer, name },
          });
        to = last.from;
      }
      const version = to === null ? null : await this.releases.version(variant.id, to);
      if (to !== null && !version)
        throw new WaggleException('resource_not_found', { detail: 'variant_version_not_found', params: { name, version: to } });
      if (to === null && from === null)
        throw new WaggleException('resource_not_found', { detail: 'release_label_not_found', params: { name, label: move.pointer } });
      let experimentRunId: string | null = null;
      if (!rollback && move.pointer === DEPLOYED_POINTER && variant.protection?.protected && !move.override && version)
        experimentRunId = await this.gate(workspaceId, variant.protection, version.id, version.version);
      // The deployed pointer always moves to a version (a promotion names one; a rollback's `from` is never null).
      if (move.pointer === DEPLOYED_POINTER) {
        if (version) await this.releases.setDeployed(variant.id, version.id);
      } else {
        const labels = { ...variant.labels };
        if (to === null) delete labels[move.pointer];
        else labels[move.pointer] = to;
        await this.releases.setLabels(variant.id, labels);
      }
      const entry = await this.releases.record({
        workspaceId,
        variantId: variant.id,
        pointer: move.pointer,
        fromVersion: from,
        toVersion: to,
        actor: releaseActor(),
        reason: move.reason ?? null,
        experimentRunId,
        override: move.override ?? false,
      });
      return { entry, variant };
    });
    this.resolutions.changed(workspaceId);
    // Triggers pin the deployed version from the webhook registry: it is current before the move answers.
    if (move.pointer === DEPLOYED_POINTER) await this.secrets.publish([variant.deployment_id]);
    return entry;
  }

  /**
   * The release gate: the best completed experiment run of this exact version within the
   * protection's age, at or above its pass rate; its id goes in the history. Otherwise 409
   * release_gate_not_satisfied saying what is missing.
   */
  private async gate(workspaceId: string, protection: ReleaseProtection, versionId: string, version: number): Promise<string> {
    const since = new Date(Date.now() - protection.max_age_days * DAY_MS);
    const best = await this.evidence.bestFor(workspaceId, versionId, since);
    if (best && best.pass_rate >= protection.min_pass_rate) return best.experiment_run_id;
    let missing: FieldDetail;
    if (best) {
      missing = {
        field: 'version',
        messages: [
          { detail: 'release_gate_pass_rate', params: { version, pass_rate: best.pass_rate, min_pass_rate: protection.min_pass_rate } },
        ],
      };
    } else {
      const older = await this.evidence.bestFor(workspaceId, versionId, new Date(0));
      missing = older
        ? {
            field: 'version',
            messages: [
              { detail: 'release_gate_run_too_old', params: { version, finished_at: older.finished_at, days: protection.max_age_days } },
            ],
          }
        : { field: 'version', messages: [{ detail: 'release_gate_no_run', params: { version } }] };
    }
    throw new WaggleException('release_gate_not_satisfied', { details: [missing] });
  }

  private async locked(workspaceId: string, deployment: string, variant: string): Promise<LockedVariant> {
    return this.found(workspaceId, deployment, variant, (name) => this.releases.lockVariant(workspaceId, deployment, name));
  }

  private async found(
    workspaceId: string,
    deployment: string,
    variant: string,
    read: (variant: string) => Promise<LockedVariant | null>,
  ): Promise<LockedVariant> {
    const found = await read(variant);
    if (!found)
      throw new WaggleException('resource_not_found', { detail: 'variant_not_found_named', params: { name: `${deployment}/${variant}` } });
    return found;
  }
}

/** `latest` and `deployed` are not labels one sets: 422. */
function checkLabel(label: string): void {
  if (!(RESERVED_LABELS as readonly string[]).includes(label)) return;
  const problem = { detail: 'release_label_reserved', params: { label } } as const;
  throw new WaggleException('validation_error', { ...problem, details: [{ field: 'label', messages: [problem] }] });
}
