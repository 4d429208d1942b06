import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { WaggleException } from '@waggle/errors';
import type { EmbeddingModel, LanguageModel } from 'ai';
import type { Dispatcher } from 'undici';
import { createLeanFetch } from './lean-fetch';
import { LocalEmbeddingModel, LocalEmbeddingPool } from './local-embeddings';
import { OpenAIChatModel } from './openai-chat/client';
import { resolveEndpoint, resolveWorkspaceEndpoint, type ProviderEndpoint, type ProviderSettings } from './settings';
import type { ModelRoute } from './types';
import type { WorkspaceCredential } from './workspace-credentials';

/** One serving provider's SDK instance, as the model kinds a route may ask for. */
interface ProviderModels {
  language(providerModelId: string): LanguageModel;
  /** Unset when the provider has no embeddings API. */
  embedding?(providerModelId: string): EmbeddingModel;
  /** The model on the lean chat-completions client; set for the OpenAI-compatible hosts only. */
  chat?(providerModelId: string): OpenAIChatModel;
}

type ModelKind = 'language' | 'embedding' | 'chat';

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

/**
 * How many providers built on workspaces' own keys a replica keeps (least recently used first
 * out). One per (workspace, provider, key version): a replaced key gets a new one at once.
 */
export const WORKSPACE_PROVIDER_CACHE_ENTRIES = 256;

export interface ProviderRegistryOptions {
  /**
   * The connections to a base URL a workspace gave with its key (a caller's URL, so it goes
   * through the SSRF guard the callbacks use: the app passes the guarded dispatcher). Unset:
   * such calls use the shared connections.
   */
  workspaceDispatcher?: Dispatcher;
  /**
   * Who calls the OpenAI-compatible hosts' chat models: the lean client (the default), or the
   * AI SDK's provider, as the other protocols are called. The conformance test and the provider
   * call bench run both.
   */
  openAIChat?: 'lean' | 'sdk';
}

/** A provider on a workspace's own key, with its models built so far. */
interface WorkspaceProvider {
  provider: ProviderModels;
  models: Record<ModelKind, Map<string, unknown>>;
}

/** AI SDK models for catalog routes, one provider instance per serving provider. */
export class ProviderRegistry {
  private readonly providers = new Map<string, ProviderModels>();
  /** Model objects are built once per route: building one (and its schemas) costs CPU on every call otherwise. */
  private readonly languageModels = new Map<string, LanguageModel>();
  private readonly embeddingModels = new Map<string, EmbeddingModel>();
  private readonly chatModels = new Map<string, OpenAIChatModel | null>();

  /** Providers on workspaces' own keys, by workspace, provider and key version; least recently used first. */
  private readonly workspaceProviders = new Map<string, WorkspaceProvider>();
  private readonly workspaceFetch: typeof fetch;
  private readonly workspaceDispatcher: Dispatcher | undefined;
  private readonly leanChat: boolean;

  /** The `local` provider's worker threads, started on its first embedding. */
  private readonly localPool: LocalEmbeddingPool;

  constructor(
    readonly settings: ProviderSettings,
    options: ProviderRegistryOptions = {},
  ) {
    this.localPool = new LocalEmbeddingPool(settings.localEmbeddingThreads);
    this.workspaceFetch = options.workspaceDispatcher ? createLeanFetch(options.workspaceDispatcher) : LEAN_FETCH;
    this.workspaceDispatcher = options.workspaceDispatcher;
    this.leanChat = options.openAIChat !== 'sdk';
  }

  /** Stops the local model's worker threads (Nest calls it when the app shuts down). */
  async onModuleDestroy(): Promise<void> {
    await this.localPool.close();
  }

  /** Throws config_error (before any request) when the provider has no credentials or base URL. */
  languageModel(route: ModelRoute): LanguageModel {
    return this.model('language', this.languageModels, route, (provider) => provider.language(route.providerModelId));
  }

  /**
   * The route's model on the lean chat-completions client, for the OpenAI-compatible hosts;
   * undefined for the other protocols, which the AI SDK calls. Throws config_error as
   * languageModel does.
   */
  chatModel(route: ModelRoute): OpenAIChatModel | undefined {
    if (route.providerApi !== 'openai-compatible' || !this.leanChat) return undefined;
    return this.model('chat', this.chatModels, route, (provider) => provider.chat?.(route.providerModelId) ?? null) ?? undefined;
  }

  /**
   * The route's embedding model. Throws config_error (before any request) when the provider
   * is not configured or has no embeddings API (Anthropic).
   */
  embeddingModel(route: ModelRoute): EmbeddingModel {
    return this.model('embedding', this.embeddingModels, route, (provider) => {
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

  /** How many providers on workspaces' own keys this replica holds (at most WORKSPACE_PROVIDER_CACHE_ENTRIES). */
  get workspaceProviderCount(): number {
    return this.workspaceProviders.size;
  }

  private model<M>(kind: ModelKind, built: Map<string, M>, route: ModelRoute, create: (provider: ProviderModels) => M): M {
    if (route.workspaceCredential) return this.workspaceModel(kind, route, route.workspaceCredential, create);
    const providerKey = `${route.providerApi}:${route.provider}`;
    const modelKey = `${providerKey}:${route.providerModelId}`;
    if (built.has(modelKey)) return built.get(modelKey) as M;
    let provider = this.providers.get(providerKey);
    if (!provider) {
      provider = this.createProvider(route);
      this.providers.set(providerKey, provider);
    }
    const model = create(provider);
    built.set(modelKey, model);
    return model;
  }

  /** A model on the route's workspace key, from the bounded cache of workspace providers. */
  private workspaceModel<M>(
    kind: ModelKind,
    route: ModelRoute,
    credential: WorkspaceCredential,
    create: (provider: ProviderModels) => M,
  ): M {
    const key = [credential.workspaceId, route.providerApi, route.provider, credential.version].join('\u0000');
    let entry = this.workspaceProviders.get(key);
    if (entry) {
      // Most recently used last: the first key is the one to drop.
      this.workspaceProviders.delete(key);
    } else {
      const endpoint = resolveWorkspaceEndpoint(this.settings, route, credential);
      const own = credential.baseUrl !== null;
      entry = {
        provider: this.createProvider(route, endpoint, own ? this.workspaceFetch : LEAN_FETCH, own ? this.workspaceDispatcher : undefined),
        models: { language: new Map(), embedding: new Map(), chat: new Map() },
      };
    }
    this.workspaceProviders.set(key, entry);
    while (this.workspaceProviders.size > WORKSPACE_PROVIDER_CACHE_ENTRIES) {
      this.workspaceProviders.delete(this.workspaceProviders.keys().next().value as string);
    }
    const models = entry.models[kind] as Map<string, M>;
    if (models.has(route.providerModelId)) return models.get(route.providerModelId) as M;
    const model = create(entry.provider);
    models.set(route.providerModelId, model);
    return model;
  }

  private createProvider(
    route: ModelRoute,
    endpoint?: ProviderEndpoint,
    fetch: typeof globalThis.fetch = LEAN_FETCH,
    dispatcher?: Dispatcher,
  ): ProviderModels {
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
    const { apiKey, baseURL } = endpoint ?? resolveEndpoint(this.settings, route);
    switch (route.providerApi) {
      case 'openai': {
        const openai = createOpenAI({ apiKey, baseURL, name: route.provider, fetch });
        // Chat completions rather than the Responses API: it is the protocol every
        // OpenAI-compatible host and the fake provider speak, so one code path is tested
        // end to end, and it keeps no conversation state at OpenAI (Responses stores by default).
        return { language: (id) => openai.chat(id), embedding: (id) => openai.embedding(id) };
      }
      case 'anthropic': {
        const anthropic = createAnthropic({ apiKey, baseURL, fetch });
        return { language: (id) => anthropic.messages(id) };
      }
      case 'google': {
        const google = createGoogleGenerativeAI({ apiKey, baseURL, fetch });
        return { language: (id) => google.languageModel(id), embedding: (id) => google.embedding(id) };
      }
      case 'openai-compatible': {
        const compatible = createOpenAICompatible({
          name: compatibleOptionsKey(route.provider),
          baseURL: baseURL as string,
          apiKey,
          includeUsage: true,
          fetch,
          // The catalog's json_schema flag decides whether a prompt may ask for a schema;
          // when one does, it must reach the host rather than be dropped with a warning.
          supportsStructuredOutputs: true,
          supportedUrls: () => PASS_IMAGE_URLS,
        });
        const url = `${(baseURL as string).replace(/\/$/, '')}/chat/completions`;
        return {
          language: (id) => compatible.chatModel(id),
          embedding: (id) => compatible.embeddingModel(id),
          chat: (id) => new OpenAIChatModel(id, { url, apiKey, dispatcher }),
        };
      }
    }
  }
}
