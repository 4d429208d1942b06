import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { resolveEndpoint, type ProviderSettings } from './settings';
import type { ModelRoute } from './types';

type ModelFactory = (providerModelId: string) => LanguageModel;

/**
 * The `providerOptions` key an OpenAI-compatible host reads its options from: the SDK takes
 * it from the provider name up to the first dot, so the name is kept to safe characters.
 */
export function compatibleOptionsKey(provider: string): string {
  return provider.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * OpenAI-compatible hosts take `image_url` parts as OpenAI does. Without this the SDK would
 * download every image itself and inline it as base64, adding a fetch and the image's size
 * in memory to each request.
 */
const PASS_IMAGE_URLS = { 'image/*': [/^https?:\/\/.+$/i] };

/** AI SDK language models for catalog routes, one provider instance per serving provider. */
export class ProviderRegistry {
  private readonly factories = new Map<string, ModelFactory>();
  /** Model objects are built once per route: building one (and its schemas) costs CPU on every call otherwise. */
  private readonly models = new Map<string, LanguageModel>();

  constructor(readonly settings: ProviderSettings) {}

  /** Throws config_error (before any request) when the provider has no credentials or base URL. */
  languageModel(route: ModelRoute): LanguageModel {
    const cacheKey = `${route.providerApi}:${route.provider}`;
    const modelKey = `${cacheKey}:${route.providerModelId}`;
    const built = this.models.get(modelKey);
    if (built) return built;
    let factory = this.factories.get(cacheKey);
    if (!factory) {
      factory = this.createFactory(route);
      this.factories.set(cacheKey, factory);
    }
    const model = factory(route.providerModelId);
    this.models.set(modelKey, model);
    return model;
  }

  private createFactory(route: ModelRoute): ModelFactory {
    const { apiKey, baseURL } = resolveEndpoint(this.settings, route);
    switch (route.providerApi) {
      case 'openai': {
        const openai = createOpenAI({ apiKey, baseURL, name: route.provider });
        // Chat completions rather than the Responses API: it is the protocol every
        // OpenAI-compatible host and the fake provider speak, so one code path is tested
        // end to end, and it keeps no conversation state at OpenAI (Responses stores by default).
        return (id) => openai.chat(id);
      }
      case 'anthropic': {
        const anthropic = createAnthropic({ apiKey, baseURL });
        return (id) => anthropic.messages(id);
      }
      case 'google': {
        const google = createGoogleGenerativeAI({ apiKey, baseURL });
        return (id) => google.languageModel(id);
      }
      case 'openai-compatible': {
        const compatible = createOpenAICompatible({
          name: compatibleOptionsKey(route.provider),
          baseURL: baseURL as string,
          apiKey,
          includeUsage: true,
          // The catalog's json_schema flag decides whether a prompt may ask for a schema;
          // when one does, it must reach the host rather than be dropped with a warning.
          supportsStructuredOutputs: true,
          supportedUrls: () => PASS_IMAGE_URLS,
        });
        return (id) => compatible.chatModel(id);
      }
    }
  }
}
