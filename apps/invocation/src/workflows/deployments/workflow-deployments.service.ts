import { Injectable } from '@nestjs/common';
import type {
  AppliedWorkflowDeployment,
  AppliedWorkflowVariant,
  WorkflowDeploymentSummary,
  WorkflowVersionSummary,
  WorkflowWebhookSecretView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { ModelRoutes } from '@waggle/providers';
import { SecretSealer } from '@waggle/webhooks';
import { validateWorkflowDefinitions, type WorkflowDeploymentDefinition, type WorkflowVariant } from '@waggle/workflows';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { WorkflowDeploymentEntity } from './entities/workflow-deployment.entity';
import {
  deploymentNotFound,
  variantNotFound,
  WorkflowDeploymentsRepository,
  type WorkflowVersionRow,
} from './workflow-deployments.repository';
import { WorkflowWebhookSecrets } from './workflow-webhook-secrets.service';

/** What a run of a workflow executes: exactly one immutable version, and the secret its callback is signed with. */
export interface ResolvedWorkflow {
  deploymentId: string;
  deploymentName: string;
  variantId: string;
  variantName: string;
  versionId: string;
  version: number;
  /** The parsed variant with its defaults applied. */
  definition: WorkflowVariant;
  /** The deployment's current webhook secret, opened. */
  webhookSecret: string;
}

/** A rotated secret is in force on every replica within this long (the engine reads it per run). */
const SECRET_CACHE_MS = 5_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** JSON with sorted keys, so equal definitions hash equally whatever the file's key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function contentHashOf(definition: WorkflowVariant): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

/**
 * Workflow deployments: declarative apply into immutable versions (checked in full by
 * @waggle/workflows and the model catalog before anything is written), listing, and
 * resolution for the engine, by name (the current version) or by version id (pinned).
 */
@Injectable()
export class WorkflowDeploymentsService {
  /** Versions never change, so a pinned version is cached for good (without its secret, which rotates). */
  private readonly versions = new LRUCache<string, Omit<WorkflowVersionRow, 'webhook_secret_sealed'>>({ max: 1_000 });
  private readonly secrets = new LRUCache<string, string>({ max: 10_000, ttl: SECRET_CACHE_MS });

  constructor(
    private readonly deployments: WorkflowDeploymentsRepository,
    private readonly webhookSecrets: WorkflowWebhookSecrets,
    private readonly routes: ModelRoutes,
    private readonly sealer: SecretSealer,
  ) {}

  /**
   * Declarative apply: deployments and variants are created when new (a new deployment with
   * its own webhook secret); a variant whose definition changed gets a new immutable version
   * and is repointed; an unchanged one is left alone, so applying the same file twice
   * changes nothing. Every definition is checked before anything is written, and everything
   * is written in one transaction: a refused file writes nothing.
   */
  async apply(workspaceId: string, workflows: unknown[]): Promise<AppliedWorkflowDeployment[]> {
    const checked = await validateWorkflowDefinitions({ workflows }, { isKnownModel: (model) => this.isKnownModel(model) });
    if (!checked.ok) {
      const [first] = checked.problems;
      throw new WaggleException('validation_error', {
        message: `The workflow definitions are invalid: ${first.field}: ${first.messages[0]}`,
        details: checked.problems,
      });
    }
    const applied = await this.deployments.transaction(async (manager) => {
      const results: AppliedWorkflowDeployment[] = [];
      for (const workflow of checked.workflows) results.push(await this.applyDeployment(manager, workspaceId, workflow));
      return results;
    });
    // The dispatcher signs callbacks from the registry, so it is current before apply answers.
    await this.webhookSecrets.publish(applied.map((deployment) => deployment.workflow_deployment_id));
    return applied;
  }

  async list(workspaceId: string): Promise<WorkflowDeploymentSummary[]> {
    return (await this.deployments.listWithVariants(workspaceId)).map(({ deployment, variants }) => ({
      deployment: deployment.name,
      workflow_deployment_id: deployment.id,
      created_at: deployment.createdAt.toISOString(),
      variants: variants.map((variant) => ({
        name: variant.name,
        variant_id: variant.id,
        version: variant.currentVersion?.version ?? null,
        inputs: variant.currentVersion?.definition.inputs ?? {},
      })),
    }));
  }

  /** Every version of a variant, newest first, each with its definition: older versions stay readable. */
  async versionsOf(workspaceId: string, deploymentName: string, variantName: string): Promise<WorkflowVersionSummary[]> {
    const deployment = await this.deployments.getDeployment(workspaceId, deploymentName);
    const variant = await this.deployments.findVariant(deployment.id, variantName);
    if (!variant) throw variantNotFound(variantName);
    const versions = await this.deployments.versionsOf(variant.id);
    return versions.map((version) => ({
      version_id: version.id,
      version: version.version,
      definition: version.definition as unknown as Record<string, unknown>,
      created_at: version.createdAt.toISOString(),
      current: version.id === variant.currentVersionId,
    }));
  }

  /** What a new run of (deployment, variant) executes: the variant's current version. */
  async resolve(workspaceId: string, deployment: string, variant: string): Promise<ResolvedWorkflow> {
    const row = await this.deployments.current(workspaceId, deployment, variant);
    if (row.deployment_id === null) throw deploymentNotFound(deployment);
    if (row.version_id === null) throw variantNotFound(variant);
    this.versions.set(row.version_id, row);
    this.secrets.set(row.deployment_id, this.sealer.open(row.webhook_secret_sealed));
    return this.toResolved(row, this.sealer.open(row.webhook_secret_sealed));
  }

  /**
   * Exactly the version a run was accepted with, whatever the variant points at now;
   * resource_not_found when it is gone or belongs to another workspace.
   */
  async pinned(workspaceId: string, versionId: string): Promise<ResolvedWorkflow> {
    const notFound = () => new WaggleException('resource_not_found', { message: `Workflow version not found: ${versionId}` });
    if (!UUID.test(versionId)) throw notFound();
    let row = this.versions.get(versionId);
    let secret: string | undefined;
    if (!row) {
      const found = await this.deployments.versionById(versionId);
      if (!found) throw notFound();
      row = found;
      this.versions.set(versionId, found);
      secret = this.sealer.open(found.webhook_secret_sealed);
      this.secrets.set(found.deployment_id, secret);
    }
    if (row.workspace_id !== workspaceId) throw notFound();
    secret ??= this.secrets.get(row.deployment_id) ?? (await this.currentSecret(row.deployment_id));
    if (secret === undefined) throw notFound();
    return this.toResolved(row, secret);
  }

  async webhookSecret(workspaceId: string, deployment: string): Promise<WorkflowWebhookSecretView> {
    return this.webhookSecrets.view(workspaceId, deployment);
  }

  /**
   * A new current secret, the old one signing too for the overlap; runs resolved on this
   * replica use the new one at once, on other replicas within SECRET_CACHE_MS.
   */
  async rotateWebhookSecret(workspaceId: string, deployment: string, overlapSeconds?: number): Promise<WorkflowWebhookSecretView> {
    const rotated = await this.webhookSecrets.rotate(workspaceId, deployment, overlapSeconds);
    this.secrets.delete(rotated.workflow_deployment_id);
    return rotated;
  }

  private async currentSecret(deploymentId: string): Promise<string | undefined> {
    const secret = await this.webhookSecrets.currentSecret(deploymentId);
    if (secret === null) return undefined;
    this.secrets.set(deploymentId, secret);
    return secret;
  }

  private toResolved(row: Omit<WorkflowVersionRow, 'webhook_secret_sealed'>, webhookSecret: string): ResolvedWorkflow {
    return {
      deploymentId: row.deployment_id,
      deploymentName: row.deployment_name,
      variantId: row.variant_id,
      variantName: row.variant_name,
      versionId: row.version_id,
      version: row.version,
      definition: row.definition,
      webhookSecret,
    };
  }

  /**
   * Whether a workflow's `prompt` step can call this model: the catalog has it and it is a
   * chat (`llm`) model. An unreachable catalog fails the apply (nothing written) rather
   * than calling every model unknown.
   */
  private async isKnownModel(modelId: string): Promise<boolean> {
    try {
      const route = await this.routes.get(modelId);
      return route.model_type === 'llm';
    } catch (error) {
      if (error instanceof WaggleException && error.code === 'resource_not_found') return false;
      throw error;
    }
  }

  private async applyDeployment(
    manager: EntityManager,
    workspaceId: string,
    workflow: WorkflowDeploymentDefinition,
  ): Promise<AppliedWorkflowDeployment> {
    let deployment = await this.deployments.findDeployment(workspaceId, workflow.deployment, { manager, lock: true });
    const created = deployment === null;
    if (!deployment) {
      const secrets = this.webhookSecrets.newSecrets();
      deployment = await this.deployments.createDeployment(manager, {
        workspaceId,
        name: workflow.deployment,
        webhookSecretSealed: secrets.current,
        previousWebhookSecretSealed: secrets.previous,
        previousSecretExpiresAt: secrets.previousExpiresAt,
      });
    }
    const variants: AppliedWorkflowVariant[] = [];
    for (const definition of workflow.variants) variants.push(await this.applyVariant(manager, deployment, definition));
    return {
      deployment: deployment.name,
      workflow_deployment_id: deployment.id,
      webhook_secret: this.sealer.open(deployment.webhookSecretSealed),
      created,
      variants,
    };
  }

  private async applyVariant(
    manager: EntityManager,
    deployment: WorkflowDeploymentEntity,
    definition: WorkflowVariant,
  ): Promise<AppliedWorkflowVariant> {
    const contentHash = contentHashOf(definition);
    let variant = await this.deployments.findVariant(deployment.id, definition.name, manager);
    if (variant?.currentVersion?.contentHash === contentHash) {
      return { name: variant.name, variant_id: variant.id, version: variant.currentVersion.version, changed: false };
    }
    variant ??= await this.deployments.createVariant(manager, deployment.id, definition.name);
    const version = await this.deployments.addVersion(manager, variant.id, { definition, contentHash });
    return { name: variant.name, variant_id: variant.id, version: version.version, changed: true };
  }
}
