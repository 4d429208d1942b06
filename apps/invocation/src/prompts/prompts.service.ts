import { Injectable } from '@nestjs/common';
import {
  catalogRoutes,
  checkFallbacks,
  type AppliedDeployment,
  type AppliedVariant,
  type ApplyPromptsRequest,
  type PromptDeploymentSpec,
  type PromptDeploymentSummary,
  type PromptVariantSpec,
  type PromptVersionSummary,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { ModelRoutes } from '@waggle/providers';
import type { EntityManager } from 'typeorm';
import { contentHashOf } from '@waggle/platform';
import type { PromptDeploymentEntity } from './entities/prompt-deployment.entity';
import type { StoredPromptParams } from './entities/prompt-version.entity';
import { PromptResolutionCache } from './prompt-resolution.cache';
import { declaredVariables } from './prompt-template';
import { PromptWebhookSecrets } from './prompt-webhook-secrets.service';
import { PromptsRepository } from './prompts.repository';

/** What a variant's version is made of, and what its content hash is taken of. */
export function definitionOf(variant: PromptVariantSpec) {
  return {
    model: variant.model,
    messages: variant.messages.map(({ role, content }) => ({ role, content })),
    params: { ...(variant.params ?? {}) } as StoredPromptParams,
    imageInputs: [...(variant.image_inputs ?? [])],
    // Left out when not set (undefined is not hashed), so a variant that sets neither hashes as
    // it did before they existed and re-applying an unchanged file changes nothing.
    fallbacks: variant.fallbacks?.length ? [...variant.fallbacks] : undefined,
    responseFormat: variant.response_format ?? undefined,
  };
}

function duplicates(names: string[]): string[] {
  return names.filter((name, index) => names.indexOf(name) !== index);
}

@Injectable()
export class PromptsService {
  constructor(
    private readonly prompts: PromptsRepository,
    private readonly resolutions: PromptResolutionCache,
    private readonly secrets: PromptWebhookSecrets,
    private readonly routes: ModelRoutes,
  ) {}

  /**
   * Declarative apply: deployments and variants are created when new; a variant whose
   * definition changed gets a new immutable version and is repointed; an unchanged one
   * is left alone, so applying the same file twice changes nothing.
   */
  async apply(request: ApplyPromptsRequest): Promise<AppliedDeployment[]> {
    const repeated = duplicates(request.prompts.map((prompt) => prompt.deployment));
    if (repeated.length)
      throw new WaggleException('validation_error', { detail: 'deployment_defined_twice', params: { names: repeated.join(', ') } });
    // Templates are checked before anything is written.
    const variables = new Map<PromptVariantSpec, string[]>();
    for (const prompt of request.prompts) {
      const repeatedVariants = duplicates(prompt.variants.map((variant) => variant.name));
      if (repeatedVariants.length)
        throw new WaggleException('validation_error', {
          detail: 'variant_defined_twice',
          params: { deployment: prompt.deployment, names: repeatedVariants.join(', ') },
        });
      for (const variant of prompt.variants) variables.set(variant, declaredVariables(variant.messages.map((message) => message.content)));
    }
    await this.checkFallbacks(request.prompts);
    const applied = await this.prompts.transaction(async (manager) => {
      const deployments: AppliedDeployment[] = [];
      for (const prompt of request.prompts) deployments.push(await this.applyDeployment(manager, request.workspace_id, prompt, variables));
      return deployments;
    });
    if (applied.some((deployment) => deployment.variants.some((variant) => variant.changed)))
      this.resolutions.changed(request.workspace_id);
    // Triggers run what the registry says, so it is current before apply answers.
    await this.secrets.publish(applied.map((deployment) => deployment.prompt_endpoint_id));
    return applied;
  }

  async list(workspaceId: string): Promise<PromptDeploymentSummary[]> {
    return (await this.prompts.listWithVariants(workspaceId)).map(({ deployment, variants }) => ({
      deployment: deployment.name,
      prompt_endpoint_id: deployment.id,
      created_at: deployment.createdAt.toISOString(),
      variants: variants.map((variant) => ({
        name: variant.name,
        variant_id: variant.id,
        version: variant.currentVersion?.version ?? null,
        model: variant.currentVersion?.model ?? null,
        variables: variant.currentVersion?.variables ?? [],
      })),
    }));
  }

  /** Every version of a variant, newest first: older versions stay readable. */
  async versions(workspaceId: string, deploymentName: string, variantName: string): Promise<PromptVersionSummary[]> {
    const deployment = await this.prompts.findDeployment(workspaceId, deploymentName);
    const variant = deployment && (await this.prompts.findVariant(deployment.id, variantName));
    if (!variant)
      throw new WaggleException('resource_not_found', {
        detail: 'variant_not_found_named',
        params: { name: `${deploymentName}/${variantName}` },
      });
    const versions = await this.prompts.versionsOf(variant.id);
    return versions.map((version) => ({
      version_id: version.id,
      version: version.version,
      model: version.model,
      messages: version.messages,
      params: version.params as Record<string, unknown>,
      variables: version.variables,
      image_inputs: version.imageInputs,
      fallbacks: version.fallbacks,
      response_format: version.responseFormat,
      created_at: version.createdAt.toISOString(),
      current: version.id === variant.currentVersionId,
    }));
  }

  /**
   * Refuses, before anything is written, a variant's fallback that could not stand in for its
   * model (D41): unknown to the catalog, not an active chat model, or unable to see the
   * variant's images or to answer to its response format natively. An unreachable catalog
   * fails the apply rather than calling every fallback unknown.
   */
  private async checkFallbacks(prompts: PromptDeploymentSpec[]): Promise<void> {
    const named = prompts.flatMap((prompt) => prompt.variants.flatMap((variant) => variant.fallbacks ?? []));
    if (named.length === 0) return;
    const routes = await catalogRoutes(named, (modelId) => this.routes.get(modelId));
    prompts.forEach((prompt, i) =>
      prompt.variants.forEach((variant, j) =>
        checkFallbacks(`prompts[${i}].variants[${j}].fallbacks`, variant.model, variant.fallbacks, routes, {
          images: (variant.image_inputs?.length ?? 0) > 0,
          jsonSchema: variant.response_format != null,
        }),
      ),
    );
  }

  private async applyDeployment(
    manager: EntityManager,
    workspaceId: string,
    prompt: PromptDeploymentSpec,
    variables: Map<PromptVariantSpec, string[]>,
  ): Promise<AppliedDeployment> {
    let deployment = await this.prompts.findDeployment(workspaceId, prompt.deployment, { manager, lock: true });
    const created = deployment === null;
    deployment ??= await this.prompts.createDeployment(manager, {
      workspaceId,
      name: prompt.deployment,
      webhookSecretSealed: this.secrets.newSecrets().current,
    });
    const variants: AppliedVariant[] = [];
    for (const spec of prompt.variants) variants.push(await this.applyVariant(manager, deployment, spec, variables.get(spec) ?? []));
    return {
      deployment: deployment.name,
      prompt_endpoint_id: deployment.id,
      webhook_secret: this.secrets.open(deployment.webhookSecretSealed),
      created,
      variants,
    };
  }

  private async applyVariant(
    manager: EntityManager,
    deployment: PromptDeploymentEntity,
    spec: PromptVariantSpec,
    variables: string[],
  ): Promise<AppliedVariant> {
    const definition = definitionOf(spec);
    const contentHash = contentHashOf(definition, 'locale');
    let variant = await this.prompts.findVariant(deployment.id, spec.name, manager);
    if (variant?.currentVersion?.contentHash === contentHash) {
      return { name: variant.name, variant_id: variant.id, version: variant.currentVersion.version, changed: false };
    }
    variant ??= await this.prompts.createVariant(manager, deployment.id, spec.name);
    const version = await this.prompts.addVersion(manager, variant.id, {
      model: definition.model,
      messages: definition.messages,
      params: definition.params,
      variables,
      imageInputs: definition.imageInputs,
      fallbacks: definition.fallbacks ?? [],
      responseFormat: definition.responseFormat ?? null,
      contentHash,
    });
    return { name: variant.name, variant_id: variant.id, version: version.version, changed: true };
  }
}
