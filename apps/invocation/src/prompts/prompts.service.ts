import { Injectable } from '@nestjs/common';
import {
  catalogRoutes,
  checkFallbacks,
  type AppliedDeployment,
  type ApplyPromptsRequest,
  type PromptDeploymentSpec,
  type PromptDeploymentSummary,
  type PromptVersionSummary,
  type WebhookSecretView,
} from '@waggle/contracts';
import { WaggleException, type FieldDetail } from '@waggle/errors';
import { ModelRoutes } from '@waggle/providers';
import { PromptDeploymentApplier } from './prompt-deployment-applier';
import { declaredVariables } from './prompt-template';
import { PromptsRepository } from './prompts.repository';

export { definitionOf } from './prompt-definition';

/** Version number → the labels pointing at it, by name, with `latest` on the newest. */
function labelsByVersion(labels: Record<string, number>, newest: number | undefined): Map<number, string[]> {
  const named = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  if (newest !== undefined) named.push(['latest', newest]);
  const byVersion = new Map<number, string[]>();
  for (const [label, version] of named) byVersion.set(version, [...(byVersion.get(version) ?? []), label]);
  return byVersion;
}

function duplicates(names: string[]): string[] {
  return names.filter((name, index) => names.indexOf(name) !== index);
}

@Injectable()
export class PromptsService {
  constructor(
    private readonly prompts: PromptsRepository,
    private readonly applier: PromptDeploymentApplier,
    private readonly routes: ModelRoutes,
  ) {}

  /**
   * Declarative apply (DeploymentApplier): deployments and variants are created when new; a
   * variant whose definition changed gets a new immutable version and is repointed; an
   * unchanged one is left alone, so applying the same file twice changes nothing. The file is
   * checked before anything is written: names defined twice, templates, fallbacks.
   */
  async apply(request: ApplyPromptsRequest): Promise<AppliedDeployment[]> {
    const repeated = duplicates(request.prompts.map((prompt) => prompt.deployment));
    if (repeated.length)
      throw new WaggleException('validation_error', { detail: 'deployment_defined_twice', params: { names: repeated.join(', ') } });
    // Templates are checked before anything is written.
    for (const prompt of request.prompts) {
      const repeatedVariants = duplicates(prompt.variants.map((variant) => variant.name));
      if (repeatedVariants.length)
        throw new WaggleException('validation_error', {
          detail: 'variant_defined_twice',
          params: { deployment: prompt.deployment, names: repeatedVariants.join(', ') },
        });
      for (const variant of prompt.variants) declaredVariables(variant.messages.map((message) => message.content));
    }
    await this.checkFallbacks(request.prompts);
    await this.checkSplits(request.workspace_id, request.prompts);
    const applied = await this.applier.apply(request.workspace_id, request.prompts);
    return applied.map(({ deployment, webhookSecret, created, variants }) => ({
      deployment: deployment.name,
      prompt_endpoint_id: deployment.id,
      webhook_secret: webhookSecret,
      created,
      variants,
    }));
  }

  /** A new current secret; the old one keeps authenticating triggers and signing callbacks for the overlap. */
  rotateWebhookSecret(workspaceId: string, deployment: string, overlapSeconds?: number): Promise<WebhookSecretView> {
    return this.applier.rotateWebhookSecret(workspaceId, deployment, overlapSeconds);
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
        split: variant.split ?? null,
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
    const labelled = labelsByVersion(variant.labels, versions[0]?.version);
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
      credentials: version.credentials,
      created_at: version.createdAt.toISOString(),
      current: version.id === variant.currentVersionId,
      labels: labelled.get(version.version) ?? [],
    }));
  }

  /**
   * Refuses, before anything is written, a split that cannot be served (the spec's decisions:
   * splits): each target names a variant of the deployment (in the file or stored) or a stored
   * version of this variant, never both, never twice, and the weights sum to 100.
   */
  private async checkSplits(workspaceId: string, prompts: PromptDeploymentSpec[]): Promise<void> {
    const problems: FieldDetail[] = [];
    for (const [i, prompt] of prompts.entries()) {
      const splitting = prompt.variants.filter((variant) => variant.split);
      if (splitting.length === 0) continue;
      const deployment = await this.prompts.findDeployment(workspaceId, prompt.deployment);
      const stored = deployment ? await this.prompts.listVariants([deployment.id]) : [];
      const names = new Set([
        ...prompt.variants.map((variant) => variant.name),
        ...stored.filter((v) => v.currentVersion).map((v) => v.name),
      ]);
      for (const [j, variant] of prompt.variants.entries()) {
        if (!variant.split) continue;
        const field = `prompts[${i}].variants[${j}].split`;
        const own = stored.find((candidate) => candidate.name === variant.name);
        const sum = variant.split.reduce((total, target) => total + target.weight, 0);
        if (sum !== 100) problems.push({ field, messages: [{ detail: 'split_weights_sum', params: { sum } }] });
        const seen = new Set<string>();
        for (const [k, target] of variant.split.entries()) {
          const at = `${field}[${k}]`;
          const key = JSON.stringify([target.variant ?? null, target.version ?? null]);
          if ((target.variant === undefined) === (target.version === undefined)) {
            problems.push({ field: at, messages: [{ detail: 'split_target_one_of' }] });
          } else if (seen.has(key)) {
            problems.push({ field: at, messages: [{ detail: 'split_target_repeated' }] });
          } else if (target.variant !== undefined && !names.has(target.variant)) {
            problems.push({ field: `${at}.variant`, messages: [{ detail: 'split_variant_unknown', params: { name: target.variant } }] });
          } else if (target.version !== undefined && !(own && (await this.prompts.versionNumbered(own.id, target.version)))) {
            problems.push({ field: `${at}.version`, messages: [{ detail: 'split_version_unknown', params: { version: target.version } }] });
          }
          seen.add(key);
        }
      }
    }
    if (problems.length > 0) throw new WaggleException('validation_error', { details: problems });
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
}
