import { WaggleException } from '@waggle/errors';
import type { ModelRoute } from './types';

export interface ProviderEndpoint {
  apiKey?: string;
  baseURL?: string;
}

/** Provider credentials and base URLs, read once from the environment. */
export interface ProviderSettings {
  /** Keyed by environment prefix: OPENAI, ANTHROPIC, GOOGLE_GENERATIVE_AI, GROQ, OLLAMA, … */
  readonly endpoints: Readonly<Record<string, ProviderEndpoint>>;
  /** How often the SDK retries a failed request (429, 5xx, connection errors) before giving up. */
  readonly maxRetries: number;
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
 * The environment prefix of a provider key: upper-cased, non-alphanumerics as `_`. Google's
 * is the one the AI SDK documents (`GOOGLE_GENERATIVE_AI_API_KEY`).
 */
export function providerEnvPrefix(provider: string): string {
  if (provider === 'google') return 'GOOGLE_GENERATIVE_AI';
  return provider.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

const ENDPOINT_VARIABLE = /^([A-Z0-9_]+?)_(API_KEY|BASE_URL)$/;

/**
 * Reads every `<NAME>_API_KEY` and `<NAME>_BASE_URL`, so any OpenAI-compatible host the
 * catalog names works without code, plus `PROVIDER_MAX_RETRIES`. Values are never echoed in
 * errors.
 */
export function providerSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  const endpoints: Record<string, ProviderEndpoint> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = ENDPOINT_VARIABLE.exec(name);
    if (!match || value === undefined || value.trim() === '') continue;
    const [, prefix, kind] = match;
    const endpoint = (endpoints[prefix] ??= {});
    if (kind === 'API_KEY') {
      endpoint.apiKey = value.trim();
    } else {
      if (!/^https?:\/\/[^\s]+$/i.test(value.trim()) || !URL.canParse(value.trim())) {
        throw new WaggleException('config_error', { message: `${name} is not an http(s) URL` });
      }
      endpoint.baseURL = value.trim();
    }
  }
  let maxRetries = DEFAULT_MAX_RETRIES;
  const retries = env.PROVIDER_MAX_RETRIES;
  if (retries !== undefined && retries.trim() !== '') {
    maxRetries = Number(retries);
    if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 10) {
      throw new WaggleException('config_error', { message: 'PROVIDER_MAX_RETRIES must be an integer from 0 to 10' });
    }
  }
  return { endpoints, maxRetries };
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
      message: `No credentials configured for provider ${route.providerName}`,
      details: { provider: route.provider },
    });
  }
  const baseURL = configured.baseURL ?? DEFAULT_BASE_URLS[route.provider];
  if (route.providerApi === 'openai-compatible' && !baseURL) {
    throw new WaggleException('config_error', {
      message: `No base URL configured for provider ${route.providerName}`,
      details: { provider: route.provider },
    });
  }
  return { ...(apiKey && { apiKey }), ...(baseURL && { baseURL }) };
}
