import { WaggleException } from '@waggle/errors';
import { ProviderRegistry } from './registry';
import {
  PROVIDER_KEYS,
  providerEnvPrefix,
  providerEnvVariables,
  providerSettingsFromEnv,
  resolveEndpoint,
  type ProviderSettings,
} from './settings';
import type { ModelRoute } from './types';

const route = (provider: string, providerApi: ModelRoute['providerApi'], providerName = provider): ModelRoute => ({
  modelId: `${provider}/m`,
  provider,
  providerName,
  providerApi,
  providerModelId: 'm',
});

function thrown(action: () => unknown): WaggleException {
  try {
    action();
  } catch (error) {
    if (error instanceof WaggleException) return error;
    throw error;
  }
  throw new Error('expected a WaggleException');
}

describe('providerEnvPrefix', () => {
  it('upper-cases the provider key and turns anything else into _', () => {
    expect(providerEnvPrefix('openai')).toBe('OPENAI');
    expect(providerEnvPrefix('together-ai')).toBe('TOGETHER_AI');
    expect(providerEnvPrefix('my.vllm')).toBe('MY_VLLM');
    expect(providerEnvPrefix('google')).toBe('GOOGLE_GENERATIVE_AI');
  });
});

describe('providerEnvVariables', () => {
  it('names a key and a base URL variable for every known provider, and the retry count', () => {
    const variables = providerEnvVariables();
    expect(variables).toHaveLength(PROVIDER_KEYS.length * 2 + 2);
    expect(variables).toEqual(
      expect.arrayContaining([
        'GROQ_API_KEY',
        'GOOGLE_GENERATIVE_AI_BASE_URL',
        'FAKE_BASE_URL',
        'PROVIDER_MAX_RETRIES',
        'PROVIDER_FIRST_BYTE_TIMEOUT_MS',
      ]),
    );
  });
});

describe('providerSettingsFromEnv', () => {
  it('reads the declared <NAME>_API_KEY and <NAME>_BASE_URL of the validated env, ignoring empty values', () => {
    const env = {
      OPENAI_API_KEY: 'sk-1',
      OPENAI_BASE_URL: 'http://127.0.0.1:4010/v1',
      ANTHROPIC_API_KEY: ' sk-ant ',
      GOOGLE_GENERATIVE_AI_API_KEY: 'g-1',
      FAKE_BASE_URL: 'http://fake:4010/v1',
      GROQ_API_KEY: '',
      // An env class holds more than the provider variables; those are not endpoints.
      NODE_ENV: 'test',
      MY_VLLM_API_KEY: 'not declared',
    };
    expect(providerSettingsFromEnv(env)).toEqual({
      endpoints: {
        OPENAI: { apiKey: 'sk-1', baseURL: 'http://127.0.0.1:4010/v1' },
        ANTHROPIC: { apiKey: 'sk-ant' },
        GOOGLE_GENERATIVE_AI: { apiKey: 'g-1' },
        FAKE: { baseURL: 'http://fake:4010/v1' },
      },
      maxRetries: 2,
    });
  });

  it('takes PROVIDER_MAX_RETRIES and refuses a count out of range', () => {
    expect(providerSettingsFromEnv({ PROVIDER_MAX_RETRIES: 0 }).maxRetries).toBe(0);
    expect(thrown(() => providerSettingsFromEnv({ PROVIDER_MAX_RETRIES: 1.5 })).code).toBe('config_error');
    expect(thrown(() => providerSettingsFromEnv({ PROVIDER_MAX_RETRIES: 11 })).message).toBe(
      'PROVIDER_MAX_RETRIES must be an integer from 0 to 10',
    );
  });

  it('refuses a base URL that is not http(s) without echoing it', () => {
    const error = thrown(() => providerSettingsFromEnv({ GROQ_BASE_URL: 'ftp://user:secret@host' }));
    expect(error.code).toBe('config_error');
    expect(error.message).toBe('GROQ_BASE_URL is not an http(s) URL');
  });
});

describe('resolveEndpoint', () => {
  const settings = providerSettingsFromEnv({
    GROQ_API_KEY: 'gsk',
    OPENAI_API_KEY: 'sk',
    FAKE_API_KEY: 'k',
    FAKE_BASE_URL: 'http://127.0.0.1:1/v1',
  });

  it('uses the built-in base URL of a known OpenAI-compatible host', () => {
    expect(resolveEndpoint(settings, route('groq', 'openai-compatible'))).toEqual({
      apiKey: 'gsk',
      baseURL: 'https://api.groq.com/openai/v1',
    });
  });

  it('lets the SDK pick the base URL of OpenAI, Anthropic and Google when none is set', () => {
    expect(resolveEndpoint(settings, route('openai', 'openai'))).toEqual({ apiKey: 'sk' });
  });

  it('needs no key for Ollama', () => {
    expect(resolveEndpoint(providerSettingsFromEnv({}), route('ollama', 'openai-compatible'))).toEqual({
      baseURL: 'http://127.0.0.1:11434/v1',
    });
  });

  it('uses a configured host of any name', () => {
    expect(resolveEndpoint(settings, route('fake', 'openai-compatible'))).toEqual({ apiKey: 'k', baseURL: 'http://127.0.0.1:1/v1' });
  });

  it('answers config_error naming the provider when there is no key', () => {
    const error = thrown(() => resolveEndpoint(settings, route('anthropic', 'anthropic', 'Anthropic')));
    expect(error).toMatchObject({ code: 'config_error', status: 500, message: 'No credentials configured for provider Anthropic' });
  });

  it('answers config_error when an unknown OpenAI-compatible host has no base URL', () => {
    // Settings built directly (not from an env class) may name any host.
    const settings: ProviderSettings = { endpoints: { VLLM: { apiKey: 'k' } }, maxRetries: 2 };
    const error = thrown(() => resolveEndpoint(settings, route('vllm', 'openai-compatible', 'vLLM')));
    expect(error).toMatchObject({ code: 'config_error', message: 'No base URL configured for provider vLLM' });
  });
});

describe('ProviderRegistry', () => {
  const registry = new ProviderRegistry(
    providerSettingsFromEnv({ OPENAI_API_KEY: 'sk', ANTHROPIC_API_KEY: 'a', GOOGLE_GENERATIVE_AI_API_KEY: 'g', GROQ_API_KEY: 'q' }),
  );

  it('builds each API family with the SDK provider the catalog names', () => {
    expect(registry.languageModel(route('openai', 'openai'))).toMatchObject({ provider: 'openai.chat', modelId: 'm' });
    expect(registry.languageModel(route('anthropic', 'anthropic'))).toMatchObject({ provider: 'anthropic.messages', modelId: 'm' });
    expect(registry.languageModel(route('google', 'google'))).toMatchObject({ provider: 'google.generative-ai', modelId: 'm' });
    expect(registry.languageModel(route('groq', 'openai-compatible'))).toMatchObject({ provider: 'groq.chat', modelId: 'm' });
  });

  it('refuses a provider without credentials with config_error before any request', () => {
    expect(thrown(() => registry.languageModel(route('mistral', 'openai-compatible', 'Mistral AI')))).toMatchObject({
      code: 'config_error',
      message: 'No credentials configured for provider Mistral AI',
    });
  });
});
