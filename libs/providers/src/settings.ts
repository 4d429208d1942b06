import { WaggleException } from '@waggle/errors';
import type { ModelRoute, ProviderApi } from './types';
import type { WorkspaceCredential } from './workspace-credentials';

export interface ProviderEndpoint {
  apiKey?: string;
  baseURL?: string;
}

/** Provider credentials and base URLs, from the app's validated configuration. */
export interface ProviderSettings {
  /** Keyed by environment prefix: OPENAI, ANTHROPIC, GOOGLE_GENERATIVE_AI, GROQ, OLLAMA, … */
  readonly endpoints: Readonly<Record<string, ProviderEndpoint>>;
  /** How often the SDK retries a failed request (429, 5xx, connection errors) before giving up. */
  readonly maxRetries: number;
  /**
   * With a fallback left to try, how long a call waits for the provider's first byte (its
   * response headers) before it gives up on that model. Unset: no limit.
   */
  readonly firstByteTimeoutMs?: number;
  /** Worker threads of the local embedding model; unset: one per core. */
  readonly localEmbeddingThreads?: number;
}

/** Where the well-known OpenAI-compatible hosts listen when `<NAME>_BASE_URL` is not set. */
export const DEFAULT_BASE_URLS: Readonly<Record<string, string>> = Object.freeze({
  groq: 'https://api.groq.com/openai/v1',
  together: 'https://api.together.xyz/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  mistral: 'https://api.mistral.ai/v1',
  deepseek: 'https://api.deepseek.com/v1',
  xai: 'https://api.x.ai/v1',
  ollama: 'http://127.0.0.1:11434/v1',
});

/** A local Ollama accepts requests without a key. */
const KEYLESS_PROVIDERS: ReadonlySet<string> = new Set(['ollama']);

export const DEFAULT_MAX_RETRIES = 2;

/**
 * The serving providers whose variables an app's env class declares (and so documents and
 * validates): every provider the shipped model catalog names, plus `fake`, the fake provider
 * that tests and local development load into the catalog. A new host is added here and in
 * the env class, not picked up from whatever the environment happens to hold.
 */
export const PROVIDER_KEYS = [
  'openai',
  'anthropic',
  'google',
  'mistral',
  'deepseek',
  'xai',
  'groq',
  'together',
  'openrouter',
  'ollama',
  'fake',
] as const;

export type ProviderKey = (typeof PROVIDER_KEYS)[number];

/** The API each known provider speaks (the shipped catalog's `providers`, and `fake`'s as tests load it). */
const PROVIDER_APIS: Readonly<Record<ProviderKey, Exclude<ProviderApi, 'local'>>> = Object.freeze({
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  mistral: 'openai-compatible',
  deepseek: 'openai-compatible',
  xai: 'openai-compatible',
  groq: 'openai-compatible',
  together: 'openai-compatible',
  openrouter: 'openai-compatible',
  ollama: 'openai-compatible',
  fake: 'openai-compatible',
});

/** The API a known provider speaks, or null for a key that names none (or `local`, which calls no API). */
export function providerApiOf(provider: string): Exclude<ProviderApi, 'local'> | null {
  return Object.hasOwn(PROVIDER_APIS, provider) ? PROVIDER_APIS[provider as ProviderKey] : null;
}

/** Whether a provider is called without a key (a workspace has no credentials to store for it). */
export function isKeylessProvider(provider: string): boolean {
  return KEYLESS_PROVIDERS.has(provider) || provider === 'local';
}

/**
 * The base URL a provider is called at with a workspace's key: the workspace's own, else the
 * operator's `<PREFIX>_BASE_URL` (where the operator says the provider lives), else the host's
 * well-known one; undefined for OpenAI, Anthropic and Google means the SDK's own.
 */
export function workspaceBaseUrl(settings: ProviderSettings, provider: string, baseUrl: string | null): string | undefined {
  return baseUrl ?? settings.endpoints[providerEnvPrefix(provider)]?.baseURL ?? DEFAULT_BASE_URLS[provider];
}

type EnvPrefix<K extends string> = K extends 'google' ? 'GOOGLE_GENERATIVE_AI' : Uppercase<K>;

/**
 * The provider variables of an app's validated env class (platform's WithProviderCredentials
 * declares each): `<PREFIX>_API_KEY` and `<PREFIX>_BASE_URL` per provider, and the retry count.
 */
export type ProviderEnv = { readonly [K in ProviderKey as `${EnvPrefix<K>}_API_KEY` | `${EnvPrefix<K>}_BASE_URL`]?: string } & {
  readonly PROVIDER_MAX_RETRIES?: number;
  readonly PROVIDER_FIRST_BYTE_TIMEOUT_MS?: number;
  /** Declared only by apps that embed (knowledge-base); unset: one per core. */
  readonly LOCAL_EMBEDDING_THREADS?: number;
};

/**
 * The environment prefix of a provider key: upper-cased, non-alphanumerics as `_`. Google's
 * is the one the AI SDK documents (`GOOGLE_GENERATIVE_AI_API_KEY`).
 */
export function providerEnvPrefix(provider: string): string {
  if (provider === 'google') return 'GOOGLE_GENERATIVE_AI';
  return provider.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** Every variable ProviderEnv names, for checking that an env class declares them all. */
export function providerEnvVariables(): string[] {
  const endpoints = PROVIDER_KEYS.flatMap((key) => [`${providerEnvPrefix(key)}_API_KEY`, `${providerEnvPrefix(key)}_BASE_URL`]);
  return [...endpoints, 'PROVIDER_MAX_RETRIES', 'PROVIDER_FIRST_BYTE_TIMEOUT_MS'];
}

/**
 * The settings the provider layer runs on, from the app's validated env object. Empty values
 * count as unset; a base URL that is not http(s) or a retry count out of range is a
 * config_error naming the variable, never echoing its value (it may hold credentials).
 */
export function providerSettingsFromEnv(env: ProviderEnv): ProviderSettings {
  const variables = env as Readonly<Record<string, string | undefined>>;
  const endpoints: Record<string, ProviderEndpoint> = {};
  for (const key of PROVIDER_KEYS) {
    const prefix = providerEnvPrefix(key);
    const apiKey = variables[`${prefix}_API_KEY`]?.trim();
    const baseURL = variables[`${prefix}_BASE_URL`]?.trim();
    if (baseURL && (!/^https?:\/\/[^\s]+$/i.test(baseURL) || !URL.canParse(baseURL))) {
      throw new WaggleException('config_error', { detail: 'provider_base_url_invalid', params: { setting: `${prefix}_BASE_URL` } });
    }
    if (apiKey || baseURL) endpoints[prefix] = { ...(apiKey && { apiKey }), ...(baseURL && { baseURL }) };
  }
  const maxRetries = env.PROVIDER_MAX_RETRIES ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 10) {
    throw new WaggleException('config_error', { detail: 'provider_max_retries_invalid' });
  }
  const localEmbeddingThreads = env.LOCAL_EMBEDDING_THREADS;
  if (
    localEmbeddingThreads !== undefined &&
    (!Number.isInteger(localEmbeddingThreads) || localEmbeddingThreads < 1 || localEmbeddingThreads > 64)
  ) {
    throw new WaggleException('config_error', { detail: 'local_embedding_threads_invalid' });
  }
  const firstByteTimeoutMs = env.PROVIDER_FIRST_BYTE_TIMEOUT_MS;
  return {
    endpoints,
    maxRetries,
    ...(firstByteTimeoutMs !== undefined && { firstByteTimeoutMs }),
    ...(localEmbeddingThreads !== undefined && { localEmbeddingThreads }),
  };
}

/**
 * The key and base URL to call a route's provider with, or config_error before any request
 * when there is no key (every provider but Ollama needs one) or, for an OpenAI-compatible
 * host, no base URL. An unset base URL of OpenAI, Anthropic or Google means the SDK's own.
 */
export function resolveEndpoint(settings: ProviderSettings, route: ModelRoute): ProviderEndpoint {
  const configured = settings.endpoints[providerEnvPrefix(route.provider)] ?? {};
  const apiKey = configured.apiKey;
  if (!apiKey && !KEYLESS_PROVIDERS.has(route.provider)) {
    throw new WaggleException('config_error', {
      detail: 'provider_no_credentials',
      params: { provider: route.providerName },
      details: { provider: route.provider },
    });
  }
  const baseURL = configured.baseURL ?? DEFAULT_BASE_URLS[route.provider];
  if (route.providerApi === 'openai-compatible' && !baseURL) {
    throw new WaggleException('config_error', {
      detail: 'provider_no_base_url',
      params: { provider: route.providerName },
      details: { provider: route.provider },
    });
  }
  return { ...(apiKey && { apiKey }), ...(baseURL && { baseURL }) };
}

/**
 * The key and base URL to call a route's provider with on a workspace's own credential (see
 * workspaceBaseUrl), or config_error before any request for an OpenAI-compatible host with no
 * base URL at all.
 */
export function resolveWorkspaceEndpoint(settings: ProviderSettings, route: ModelRoute, credential: WorkspaceCredential): ProviderEndpoint {
  const baseURL = workspaceBaseUrl(settings, route.provider, credential.baseUrl);
  if (route.providerApi === 'openai-compatible' && !baseURL) {
    throw new WaggleException('config_error', {
      detail: 'provider_no_base_url',
      params: { provider: route.providerName },
      details: { provider: route.provider },
    });
  }
  return { apiKey: credential.apiKey, ...(baseURL && { baseURL }) };
}
