import { sameMcpPublish, storedMcpPublish, type McpPublish } from '@waggle/contracts';
import type { OwnerWebhookSecrets } from '@waggle/webhooks';
import type { WebhookOwnerColumns } from '@waggle/database';
import type { DeploymentRepository, VariantShape } from './deployment.repository';
import type { VersionColumns } from './version-columns';

/** A variant as an apply file declares it: its name, and whether it is offered as an MCP tool. */
export interface VariantSpecShape {
  name: string;
  publish?: McpPublish | null;
}

/** A deployment as an apply file declares it: its name and its variants by name. */
export interface DeploymentSpec<VariantSpec extends VariantSpecShape> {
  deployment: string;
  variants: VariantSpec[];
}

/** What an apply did to one variant. */
export interface AppliedVariantOutcome {
  name: string;
  variant_id: string;
  /** The version the variant points at after this apply. */
  version: number;
  /** True when this apply made a new version (or the variant itself). */
  changed: boolean;
  /** Present and true when the new (or identical newest) version was recorded without being served: `version` is it. */
  staged?: boolean;
  /** With `staged`: the version still served. */
  deployed_version?: number | null;
  /** With `staged`: it was staged because the variant is protected. */
  protected?: boolean;
}

/**
 * What a kind whose variants have release pointers (prompt variants) adds to an apply: whether a
 * changed variant's new version is staged instead of served, the variant's settings kept outside
 * its versions (a split), and the history of its deployed version's moves.
 */
export interface VariantReleases<Variant, VariantSpec> {
  /** `requested` (the file's `stage`), `protected` (the variant is), or null: the new version is served. */
  staging(variant: Variant, spec: VariantSpec): 'requested' | 'protected' | null;
  /** Writes the variant's unversioned release settings; true when that changed what its runs resolve. */
  settle(workspaceId: string, variant: Variant, spec: VariantSpec): Promise<boolean>;
  /** Records an apply's move of the deployed version (a new variant's first version included). */
  moved(workspaceId: string, variant: Variant, from: number | null, to: number): Promise<void>;
}

/** What an apply did to one deployment; each kind's answer names its id its own way. */
export interface AppliedDeploymentOutcome<Deployment> {
  deployment: Deployment;
  /** The deployment's current webhook secret, opened: apply shows it. */
  webhookSecret: string;
  created: boolean;
  variants: AppliedVariantOutcome[];
}

/** The cache of a kind's resolutions (which version a run of a variant uses): forgotten on every replica. */
export interface ResolutionCache {
  changed(workspaceId: string): void;
}

/** What a kind of deployment gives the applier: its rows, its webhook secrets and the cache of its resolutions. */
export interface DeploymentKind<
  Deployment extends WebhookOwnerColumns,
  Variant extends VariantShape<Version>,
  Version extends VersionColumns,
  View,
> {
  repository: DeploymentRepository<Deployment, Variant, Version>;
  secrets: OwnerWebhookSecrets<Deployment, View>;
  resolutions: ResolutionCache;
  /**
   * Checks the file against what the workspace keeps, inside the apply's transaction before
   * anything is written (the MCP tool names it publishes): a refusal writes nothing.
   */
  check?: (workspaceId: string, specs: ReadonlyArray<DeploymentSpec<VariantSpecShape>>) => Promise<void>;
}

/** A variant's version as the applier stores it: its kind's columns, with the hash of the definition it was made from. */
export type VersionDraft<Version extends VersionColumns> = Omit<Version, keyof VersionColumns> & { contentHash: string };

/**
 * Every write to a kind of deployment (prompt deployments, workflow deployments), done one way
 * for both: the declarative apply and the webhook secret's rotation. A kind extends it with
 * its repository, its webhook secrets and its resolution cache, and says what version a
 * variant's definition makes (versionOf); its service checks an apply file before handing it here.
 *
 * **Apply.** Deployments and variants are created when new; a variant whose definition changed
 * (by content hash) gets a new immutable version and is repointed; an unchanged one is left
 * alone, so applying the same file twice changes nothing. Everything is written in one
 * transaction (each deployment locked from read to write): a failed apply writes nothing.
 * Concurrent applies of one deployment name run one after the other, the first creating it
 * and the next finding it (`changed: false` when identical), whatever order their files name
 * their deployments in (DeploymentRepository.lockDeploymentNames). A
 * variant's `publish` (offered as an MCP tool) is kept on the variant, outside its versions: a
 * change to it alone makes no version and answers `changed: false`.
 *
 * **The secret rule.** A new deployment gets its own webhook secret with all three columns
 * written (the current secret; no previous one, no expiry), and an apply never touches an
 * existing deployment's secrets: a rotation's previous secret keeps authenticating and signing
 * until its expiry (decisions: webhook secrets, the rotation window), whatever is applied
 * meanwhile. Apply answers the current secret, and publishes each deployment's webhook target
 * (every secret in force) before it answers, as triggers and callbacks read the registry.
 *
 * **The cache rule.** A cached resolution serves a deployment's row (its ids, its name, its
 * webhook secret) and the current version of one of its variants; a failed or empty load is
 * never kept (BroadcastCache), so nothing is cached for a deployment or a variant that does not
 * exist yet. The workspace's resolutions are therefore forgotten, on every replica, exactly when
 * a write changed one of those: an apply that made a version (a changed or new variant), and a
 * rotation. An apply that changed nothing forgets nothing.
 */
export abstract class DeploymentApplier<
  Spec extends DeploymentSpec<VariantSpec>,
  VariantSpec extends VariantSpecShape,
  Deployment extends WebhookOwnerColumns,
  Variant extends VariantShape<Version>,
  Version extends VersionColumns & { contentHash: string },
  View,
> {
  protected constructor(
    private readonly kind: DeploymentKind<Deployment, Variant, Version, View>,
    private readonly releases?: VariantReleases<Variant, VariantSpec>,
  ) {}

  /** The version a variant's definition makes. */
  protected abstract versionOf(variant: VariantSpec): VersionDraft<Version>;

  /** Applies the deployments of one file, checked by the kind's service beforehand. */
  async apply(workspaceId: string, specs: readonly Spec[]): Promise<Array<AppliedDeploymentOutcome<Deployment>>> {
    const { repository, secrets, resolutions, check } = this.kind;
    // Set when a variant's unversioned release settings (a split) changed what its runs resolve.
    const settled = { changed: false };
    const applied = await repository.transaction(async () => {
      // Before anything is read: a concurrent apply of any of these names waits for this one to end.
      await repository.lockDeploymentNames(
        workspaceId,
        specs.map((spec) => spec.deployment),
      );
      await check?.(workspaceId, specs);
      const outcomes: Array<AppliedDeploymentOutcome<Deployment>> = [];
      for (const spec of specs) outcomes.push(await this.applyDeployment(workspaceId, spec, settled));
      return outcomes;
    });
    if (settled.changed || applied.some((outcome) => outcome.variants.some((variant) => variant.changed))) resolutions.changed(workspaceId);
    // Triggers and callbacks read the registry, so it is current before apply answers.
    await secrets.publish(applied.map((outcome) => outcome.deployment.id));
    return applied;
  }

  /** A new current secret, the old one authenticating and signing too for the overlap; resolutions are forgotten everywhere. */
  async rotateWebhookSecret(workspaceId: string, deployment: string, overlapSeconds?: number): Promise<View> {
    const rotated = await this.kind.secrets.rotate(workspaceId, deployment, overlapSeconds);
    this.kind.resolutions.changed(workspaceId);
    return rotated;
  }

  private async applyDeployment(
    workspaceId: string,
    spec: Spec,
    settled: { changed: boolean },
  ): Promise<AppliedDeploymentOutcome<Deployment>> {
    const { repository, secrets } = this.kind;
    let deployment = await repository.findDeployment(workspaceId, spec.deployment, { lock: true });
    const created = deployment === null;
    if (!deployment) {
      const sealed = secrets.newSecrets();
      deployment = await repository.createDeployment({
        workspaceId,
        name: spec.deployment,
        webhookSecretSealed: sealed.current,
        previousWebhookSecretSealed: sealed.previous,
        previousSecretExpiresAt: sealed.previousExpiresAt,
      });
    }
    const variants: AppliedVariantOutcome[] = [];
    for (const variant of spec.variants) variants.push(await this.applyVariant(workspaceId, deployment, variant, settled));
    return { deployment, webhookSecret: secrets.open(deployment.webhookSecretSealed), created, variants };
  }

  private async applyVariant(
    workspaceId: string,
    deployment: Deployment,
    spec: VariantSpec,
    settled: { changed: boolean },
  ): Promise<AppliedVariantOutcome> {
    const { repository } = this.kind;
    const { releases } = this;
    const draft = this.versionOf(spec);
    // `publish` is the variant's, not its version's: changing it makes no version.
    const publish = storedMcpPublish(spec.publish);
    let variant = await repository.findVariant(deployment.id, spec.name);
    if (variant && !sameMcpPublish(variant.publish, publish)) await repository.setPublish(variant.id, publish);
    if (variant && releases && (await releases.settle(workspaceId, variant, spec))) settled.changed = true;
    const deployed = variant?.currentVersion ?? null;
    if (variant && deployed?.contentHash === draft.contentHash) {
      return { name: spec.name, variant_id: variant.id, version: deployed.version, changed: false };
    }
    // Only a variant that serves a version already can stage one: a new variant's first version is served.
    const staging = variant && deployed && releases ? releases.staging(variant, spec) : null;
    if (variant && deployed && staging) {
      const staged = { staged: true, deployed_version: deployed.version, ...(staging === 'protected' && { protected: true }) };
      // Staging the same definition again records nothing new: the newest version is it.
      const newest = await repository.newestVersion(variant.id);
      if (newest?.contentHash === draft.contentHash)
        return { name: spec.name, variant_id: variant.id, version: newest.version, changed: false, ...staged };
      const version = await repository.addVersion(variant.id, draft, { serve: false });
      return { name: spec.name, variant_id: variant.id, version: version.version, changed: true, ...staged };
    }
    if (!variant) {
      variant = await repository.createVariant(deployment.id, spec.name, publish);
      if (releases && (await releases.settle(workspaceId, variant, spec))) settled.changed = true;
    }
    const version = await repository.addVersion(variant.id, draft);
    await releases?.moved(workspaceId, variant, deployed?.version ?? null, version.version);
    return { name: variant.name, variant_id: variant.id, version: version.version, changed: true };
  }
}
