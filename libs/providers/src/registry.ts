import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { WaggleException } from '@waggle/errors';
import type { EmbeddingModel, LanguageModel } from 'ai';
import { createLeanFetch } from './lean-fetch';
import { LocalEmbeddingModel, LocalEmbeddingPool } from './local-embeddings';
import { resolveEndpoint, type ProviderSettings } from './settings';
import type { ModelRoute } from './types';

/** One serving provider's SDK instance, as the model kinds a route may ask for. */
interface ProviderModels {
  language(providerModelId: string): LanguageModel;
  /** Unset when the provider has no embeddings API. */
  embedding?(providerModelId: string): EmbeddingModel;
}

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

/** Every provider's HTTP calls (see createLeanFetch). */
const LEAN_FETCH = createLeanFetch();

/** AI SDK models for catalog routes, one provider instance per serving provider. */
export class ProviderRegistry {
  private readonly providers = new Map<string, ProviderModels>();
  /** Model objects are built once per route: building one (and its schemas) costs CPU on every call otherwise. */
  private readonly languageModels = new Map<string, LanguageModel>();
  private readonly embeddingModels = new Map<string, EmbeddingModel>();

  /** The `local` provider's worker threads, started on its first embedding. */
  private readonly localPool: LocalEmbeddingPool;

  constructor(readonly settings: ProviderSettings) {
    this.localPool = new LocalEmbeddingPool(settings.localEmbeddingThreads);
  }

  /** Stops the local model's worker threads (Nest calls it when the app shuts down). */
  async onModuleDestroy(): Promise<void> {
    await this.localPool.close();
  }

  /** Throws config_error (before any request) when the provider has no credentials or base URL. */
  languageModel(route: ModelRoute): LanguageModel {
    return this.model(this.languageModels, route, (provider) => provider.language(route.providerModelId));
  }

  /**
   * The route's embedding model. Throws config_error (before any request) when the provider
   * is not configured or has no embeddings API (Anthropic).
   */
  embeddingModel(route: ModelRoute): EmbeddingModel {
    return this.model(this.embeddingModels, route, (provider) => {
      if (!provider.embedding) {
        throw new WaggleException('config_error', {
          detail: 'provider_no_embedding_models',
          params: { provider: route.providerName },
          details: { provider: route.provider },
        });
      }
      return provider.embedding(route.providerModelId);
    });
  }

  private model<M>(built: Map<string, M>, route: ModelRoute, create: (provider: ProviderModels) => M): M {
    const providerKey = `${route.providerApi}:${route.provider}`;
    const modelKey = `${providerKey}:${route.providerModelId}`;
    const existing = built.get(modelKey);
    if (existing) return existing;
    let provider = this.providers.get(providerKey);
    if (!provider) {
      provider = this.createProvider(route);
      this.providers.set(providerKey, provider);
    }
    const model = create(provider);
    built.set(modelKey, model);
    return model;
  }

  private createProvider(route: ModelRoute): ProviderModels {
    if (route.providerApi === 'local') {
      return {
        language: () => {
          throw new WaggleException('config_error', {
            detail: 'provider_no_language_models',
            params: { provider: route.providerName },
            details: { provider: route.provider },
          });
        },
        embedding: (id) => new LocalEmbeddingModel(id, this.localPool),
      };
    }
    const { apiKey, baseURL } = resolveEndpoint(this.settings, route);
    switch (route.providerApi) {
      case 'openai': {
        const openai = createOpenAI({ apiKey, baseURL, name: route.provider, fetch: LEAN_FETCH });
        // Chat completions rather than the Responses API: it is the protocol every
        // OpenAI-compatible host and the fake provider speak, so one code path is tested
        // end to end, and it keeps no conversation state at OpenAI (Responses stores by default).
        return { language: (id) => openai.chat(id), embedding: (id) => openai.embedding(id) };
      }
      case 'anthropic': {
        const anthropic = createAnthropic({ apiKey, baseURL, fetch: LEAN_FETCH });
        return { language: (id) => anthropic.messages(id) };
      }
      case 'google': {
        const google = createGoogleGenerativeAI({ apiKey, baseURL, fetch: LEAN_FETCH });
        return { language: (id) => google.languageModel(id), embedding: (id) => google.embedding(id) };
      }
      case 'openai-compatible': {
        const compatible = createOpenAICompatible({
          name: compatibleOptionsKey(route.provider),
          baseURL: baseURL as string,
          apiKey,
          includeUsage: true,
          fetch: LEAN_FETCH,
          // The catalog's json_schema flag decides whether a prompt may ask for a schema;
          // when one does, it must reach the host rather than be dropped with a warning.
          supportsStructuredOutputs: true,
          supportedUrls: () => PASS_IMAGE_URLS,
        });
        return { language: (id) => compatible.chatModel(id), embedding: (id) => compatible.embeddingModel(id) };
      }
    }
  }
}
