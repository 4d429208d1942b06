import { Injectable } from '@nestjs/common';
import type { ModelRoute as CatalogRoute } from '@waggle/contracts';
import {
  complete,
  ModelRoutes,
  ProviderRegistry,
  providerFailure,
  resolveChatRoute,
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
    const { catalog, route } = await resolveChatRoute(this.routes, this.registry, version.model, { images: images.length > 0 });
    return {
      ...prompt,
      catalogRoute: catalog,
      route,
      messages: renderMessages(version.messages, target.inputs, images),
      params: toPromptParams(version.params),
    };
  }

  /** One call of the prepared prompt; a provider failure is the provider_error it answers. */
  async complete(prepared: PreparedPrompt, abortSignal?: AbortSignal): Promise<CompletionResult> {
    try {
      return await complete(this.registry, prepared.route, {
        messages: prepared.messages as PromptMessage[],
        params: prepared.params,
        abortSignal,
      });
    } catch (error) {
      throw providerFailure(error, prepared.route);
    }
  }

  /** The deployed prompt run whole, recorded by the caller: the workflow `prompt` step's entry point. */
  async run(target: PromptTarget, abortSignal?: AbortSignal): Promise<{ prepared: PreparedPrompt; result: CompletionResult }> {
    const prepared = await this.prepare(target);
    return { prepared, result: await this.complete(prepared, abortSignal) };
  }
}
