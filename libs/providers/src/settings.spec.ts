import { WaggleException } from '@waggle/errors';
import { ProviderRegistry } from './registry';
import { providerEnvPrefix, providerSettingsFromEnv, resolveEndpoint } from './settings';
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

describe('providerSettingsFromEnv', () => {
  it('reads every <NAME>_API_KEY and <NAME>_BASE_URL, ignoring empty values', () => {
    const settings = providerSettingsFromEnv({
      OPENAI_API_KEY: 'sk-1',
      OPENAI_BASE_URL: 'http://127.0.0.1:4010/v1',
      ANTHROPIC_API_KEY: ' sk-ant ',
      GOOGLE_GENERATIVE_AI_API_KEY: 'g-1',
      MY_VLLM_BASE_URL: 'http://vllm:8000/v1',
      GROQ_API_KEY: '',
      PATH: '/usr/bin',
    });
    expect(settings).toEqual({
      endpoints: {
        OPENAI: { apiKey: 'sk-1', baseURL: 'http://127.0.0.1:4010/v1' },
        ANTHROPIC: { apiKey: 'sk-ant' },
        GOOGLE_GENERATIVE_AI: { apiKey: 'g-1' },
        MY_VLLM: { baseURL: 'http://vllm:8000/v1' },
      },
      maxRetries: 2,
    });
  });

  it('reads PROVIDER_MAX_RETRIES', () => {
    expect(providerSettingsFromEnv({ PROVIDER_MAX_RETRIES: '0' }).maxRetries).toBe(0);
    expect(thrown(() => providerSettingsFromEnv({ PROVIDER_MAX_RETRIES: 'lots' })).code).toBe('config_error');
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
    const error = thrown(() => resolveEndpoint(providerSettingsFromEnv({ VLLM_API_KEY: 'k' }), route('vllm', 'openai-compatible', 'vLLM')));
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
