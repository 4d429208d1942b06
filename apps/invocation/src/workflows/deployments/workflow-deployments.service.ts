import { Injectable } from '@nestjs/common';
import {
  catalogRoutes,
  checkFallbacks,
  knownRoute,
  type AppliedWorkflowDeployment,
  type WorkflowDeploymentSummary,
  type WorkflowVersionSummary,
  type WorkflowWebhookSecretView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { ModelRoutes } from '@waggle/providers';
import { fieldPath, validateWorkflowDefinitions, walkSteps, type WorkflowDeploymentDefinition } from '@waggle/workflows';
import { WorkflowDeploymentApplier } from './workflow-deployment-applier';
import { variantNotFound, WorkflowDeploymentsRepository } from './workflow-deployments.repository';
import { WorkflowResolutionCache, type PinnedWorkflow, type ResolvedWorkflow } from './workflow-resolution.cache';
import { WorkflowWebhookSecrets } from './workflow-webhook-secrets.service';

/**
 * Workflow deployments: declarative apply into immutable versions (checked in full by
 * @waggle/workflows and the model catalog before anything is written), listing, and
 * resolution for the engine, by name (the current version) or by version id (pinned).
 */
@Injectable()
export class WorkflowDeploymentsService {
  constructor(
    private readonly deployments: WorkflowDeploymentsRepository,
    private readonly applier: WorkflowDeploymentApplier,
    private readonly resolutions: WorkflowResolutionCache,
    private readonly webhookSecrets: WorkflowWebhookSecrets,
    private readonly routes: ModelRoutes,
  ) {}

  /**
   * Declarative apply (DeploymentApplier): deployments and variants are created when new (a new
   * deployment with its own webhook secret); a variant whose definition changed gets a new
   * immutable version and is repointed; an unchanged one is left alone, so applying the same
   * file twice changes nothing. Every definition is checked before anything is written, and
   * everything is written in one transaction: a refused file writes nothing.
   */
  async apply(workspaceId: string, workflows: unknown[]): Promise<AppliedWorkflowDeployment[]> {
    const checked = await validateWorkflowDefinitions({ workflows }, { isKnownModel: (model) => this.isKnownModel(model) });
    if (!checked.ok) {
      const [first] = checked.problems;
      throw new WaggleException('validation_error', {
        detail: 'invalid_workflow_definitions',
        // The reason in the reader's language (zod's own texts stay English); `details` keeps the English texts.
        params: { field: first.field, reason: first.reasons[0] ?? first.messages[0] },
        details: checked.problems.map(({ field, messages }) => ({ field, messages })),
      });
    }
    await this.checkFallbacks(checked.workflows);
    const applied = await this.applier.apply(workspaceId, checked.workflows);
    return applied.map(({ deployment, webhookSecret, created, variants }) => ({
      deployment: deployment.name,
      workflow_deployment_id: deployment.id,
      webhook_secret: webhookSecret,
      created,
      variants,
    }));
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
  resolve(workspaceId: string, deployment: string, variant: string): Promise<ResolvedWorkflow> {
    return this.resolutions.resolve(workspaceId, deployment, variant);
  }

  /** Exactly the version a run was accepted with (resource_not_found when it is not the workspace's). */
  pinned(workspaceId: string, versionId: string): Promise<PinnedWorkflow> {
    return this.resolutions.pinned(workspaceId, versionId);
  }

  async webhookSecret(workspaceId: string, deployment: string): Promise<WorkflowWebhookSecretView> {
    return this.webhookSecrets.view(workspaceId, deployment);
  }

  /** A new current secret, the old one signing too for the overlap; new runs on every replica answer the new one. */
  rotateWebhookSecret(workspaceId: string, deployment: string, overlapSeconds?: number): Promise<WorkflowWebhookSecretView> {
    return this.applier.rotateWebhookSecret(workspaceId, deployment, overlapSeconds);
  }

  /**
   * Whether a workflow's `prompt` step can call this model: the catalog has it and it is a
   * chat (`llm`) model. An unreachable catalog fails the apply (nothing written) rather
   * than calling every model unknown.
   */
  private async isKnownModel(modelId: string): Promise<boolean> {
    const route = await knownRoute(this.routes.get(modelId));
    return route?.model_type === 'llm';
  }

  /**
   * Refuses, before anything is written, a `prompt` step's fallback (steps in loops and
   * conditions too) that could not stand in for its model (D41): unknown to the catalog, not
   * an active chat model, or unable to answer to the step's response format natively. Only
   * steps naming a `model` have fallbacks (a deployed prompt's variant carries its own).
   */
  private async checkFallbacks(workflows: WorkflowDeploymentDefinition[]): Promise<void> {
    const steps: Array<{ field: string; model: string; fallbacks: string[]; jsonSchema: boolean }> = [];
    workflows.forEach((deployment, d) =>
      deployment.variants.forEach((variant, v) =>
        walkSteps(variant.steps, ['workflows', d, 'variants', v, 'steps'], (step, path) => {
          if (step.type === 'prompt' && step.model !== undefined && step.fallbacks?.length)
            steps.push({
              field: fieldPath([...path, 'fallbacks']),
              model: step.model,
              fallbacks: step.fallbacks,
              jsonSchema: step.response_format !== undefined,
            });
        }),
      ),
    );
    if (steps.length === 0) return;
    const routes = await catalogRoutes(
      steps.flatMap((step) => step.fallbacks),
      (modelId) => this.routes.get(modelId),
    );
    for (const { field, model, fallbacks, jsonSchema } of steps) checkFallbacks(field, model, fallbacks, routes, { jsonSchema });
  }
}
