import { Injectable } from '@nestjs/common';
import type { ModelRoute as CatalogRoute } from '@waggle/contracts';
import {
  ModelRoutes,
  ModelRun,
  ProviderRegistry,
  resolveModelChain,
  toPromptParams,
  type CompletionResult,
  type ModelRoute,
  type PromptMessage,
  type PromptParams,
} from '@waggle/providers';
import { PromptResolutionCache } from '../prompts/prompt-resolution.cache';
import type { ResolvedPrompt } from '../prompts/prompts.repository';
import { imageUrls, renderMessages, type RunMessage } from './prompt-messages';

/** A deployed prompt's variant and the inputs its templates are rendered with. */
export interface PromptTarget {
  workspaceId: string;
  deployment: string;
  variant: string;
  inputs: Record<string, unknown>;
}

/** A prompt run that nothing can refuse any more: the version, its model's routes, the rendered call. */
export interface PreparedPrompt extends ResolvedPrompt {
  catalogRoute: CatalogRoute;
  route: ModelRoute;
  /** The variant's model, then its fallbacks (D41). */
  routes: ModelRoute[];
  messages: RunMessage[];
  params: PromptParams;
}

/**
 * How a deployed prompt is executed, for whatever runs one: prompt runs (which record each in
 * the ledger around it) and the workflow `prompt` step (which records it as a step). Every
 * refusal comes before the provider is called.
 */
@Injectable()
export class PromptExecution {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly routes: ModelRoutes,
    private readonly resolutions: PromptResolutionCache,
  ) {}

  /** The variant's current version (or the one given, a trigger's pinned one), rendered for its model. */
  async prepare(target: PromptTarget, resolved?: ResolvedPrompt): Promise<PreparedPrompt> {
    const prompt = resolved ?? (await this.resolutions.resolve(target.workspaceId, target.deployment, target.variant));
    const { version } = prompt;
    const images = imageUrls(version.imageInputs, target.inputs);
    const chain = await resolveModelChain(this.routes, this.registry, version.model, version.fallbacks, { images: images.length > 0 });
    return {
      ...prompt,
      catalogRoute: chain.catalog,
      route: chain.route,
      routes: chain.routes,
      messages: renderMessages(version.messages, target.inputs, images),
      params: toPromptParams(version.params, version.responseFormat),
    };
  }

  /** The model calls of one run of the prepared prompt: its model, its fallbacks, a repair. */
  modelRun(prepared: PreparedPrompt): ModelRun {
    return new ModelRun(this.registry, prepared.routes);
  }

  /**
   * One answer of the prepared prompt, by its model or a fallback; a provider failure is the
   * provider_error it answers, with every attempt in its details.
   */
  async complete(prepared: PreparedPrompt, abortSignal?: AbortSignal, run = this.modelRun(prepared)): Promise<CompletionResult> {
    return run.complete({ messages: prepared.messages as PromptMessage[], params: prepared.params, abortSignal });
  }
}
