import { WaggleException } from '@waggle/errors';
import { APICallError } from 'ai';
import { inspect } from 'node:util';
import { providerFailure } from './failures';
import { ProviderRegistry } from './registry';
import { providerSettingsFromEnv } from './settings';
import type { ModelRoute } from './types';
import { credentialSourceOf, withRunCredentials, WorkspaceCredential, WorkspaceCredentialCache } from './workspace-credentials';

const WORKSPACE = '7d0c3f4e-41a1-4f60-9c4e-5f0f3f2f1a11';
const KEY = 'sk-workspace-secret-0123456789';
const ROUTE: ModelRoute = {
  modelId: 'fake-chat',
  provider: 'fake',
  providerName: 'Fake Provider',
  providerApi: 'openai-compatible',
  providerModelId: 'fake-chat',
};
const credential = (version = 'v1', key = KEY) => new WorkspaceCredential(WORKSPACE, 'fake', key, null, version);

function codeOf(error: unknown): string | undefined {
  return error instanceof WaggleException ? error.code : undefined;
}

describe('withRunCredentials', () => {
  it('gives a workspace run the stored key of the route’s provider, and says the call is on the workspace’s credentials', async () => {
    const asked: string[] = [];
    const route = await withRunCredentials(ROUTE, {
      source: 'workspace',
      workspaceId: WORKSPACE,
      lookup: async (workspaceId, provider) => {
        asked.push(`${workspaceId}/${provider}`);
        return credential();
      },
    });
    expect(asked).toEqual([`${WORKSPACE}/fake`]);
    expect(route.workspaceCredential?.apiKey).toBe(KEY);
    expect(credentialSourceOf(route)).toBe('workspace');
    expect(credentialSourceOf(ROUTE)).toBe('hosted');
  });

  it('refuses a workspace run with no key stored for the provider: 422 personal_model_missing_credentials naming it', async () => {
    const refusal = await withRunCredentials(ROUTE, { source: 'workspace', workspaceId: WORKSPACE, lookup: async () => null }).catch(
      (error: unknown) => error,
    );
    expect(codeOf(refusal)).toBe('personal_model_missing_credentials');
    expect((refusal as WaggleException).status).toBe(422);
    expect((refusal as WaggleException).details).toEqual({ provider: 'fake' });
  });

  it('refuses a hosted run when the hosted credits are used up (402), and lets a workspace run through then', async () => {
    const exhausted = await withRunCredentials(ROUTE, { source: 'hosted', workspaceId: WORKSPACE, creditsExhausted: true }).catch(
      (error: unknown) => error,
    );
    expect(codeOf(exhausted)).toBe('insufficient_hosted_llm_credits');
    expect((exhausted as WaggleException).status).toBe(402);
    await expect(withRunCredentials(ROUTE, { source: 'hosted', workspaceId: WORKSPACE })).resolves.toBe(ROUTE);
    const own = await withRunCredentials(ROUTE, {
      source: 'workspace',
      workspaceId: WORKSPACE,
      creditsExhausted: true,
      lookup: async () => credential(),
    });
    expect(credentialSourceOf(own)).toBe('workspace');
  });

  it('never shows the key when the credential or a route carrying it is serialised or printed', async () => {
    const route = await withRunCredentials(ROUTE, { source: 'workspace', workspaceId: WORKSPACE, lookup: async () => credential() });
    expect(JSON.stringify(route)).not.toContain(KEY);
    expect(inspect(route, { depth: 10 })).not.toContain(KEY);
    expect(JSON.stringify({ ...route })).not.toContain(KEY);
  });
});

describe('providerFailure on the workspace’s key', () => {
  const refused = (status: number) =>
    new APICallError({
      message: 'Incorrect API key provided',
      url: 'http://fake/v1/chat/completions',
      requestBodyValues: {},
      statusCode: status,
    });

  it('is 422 personal_model_invalid_credentials when the provider refuses the key (401, 403), not a provider_error', () => {
    const route = { ...ROUTE, workspaceCredential: credential() };
    for (const status of [401, 403]) {
      const failure = providerFailure(refused(status), route);
      expect(failure.code).toBe('personal_model_invalid_credentials');
      expect(failure.details).toEqual({ provider: 'fake', status });
    }
    expect(providerFailure(refused(500), route).code).toBe('provider_error');
    // The operator's key refused stays the operator's problem: a provider_error.
    expect(providerFailure(refused(401), ROUTE).code).toBe('provider_error');
  });
});

describe('WorkspaceCredentialCache', () => {
  it('reads a credential once within its time-to-live, again after it, and at once after forget', async () => {
    let now = 0;
    let loads = 0;
    const cache = new WorkspaceCredentialCache(
      async () => {
        loads += 1;
        return credential(`v${loads}`);
      },
      { ttlMs: 1_000, now: () => now },
    );
    expect((await cache.lookup(WORKSPACE, 'fake'))?.version).toBe('v1');
    now = 999;
    expect((await cache.lookup(WORKSPACE, 'fake'))?.version).toBe('v1');
    now = 1_000;
    expect((await cache.lookup(WORKSPACE, 'fake'))?.version).toBe('v2');
    cache.forget(WORKSPACE, 'fake');
    expect((await cache.lookup(WORKSPACE, 'fake'))?.version).toBe('v3');
  });

  it('holds at most maxEntries credentials, dropping the oldest read first', async () => {
    const cache = new WorkspaceCredentialCache(async (_workspace, provider) => credential(provider), { maxEntries: 3 });
    for (const provider of ['a', 'b', 'c', 'd', 'e']) await cache.lookup(WORKSPACE, provider);
    expect(cache.size).toBe(3);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const cache = new WorkspaceCredentialCache(async () => {
      if (fail) throw new Error('owner unreachable');
      return credential();
    });
    await expect(cache.lookup(WORKSPACE, 'fake')).rejects.toThrow('owner unreachable');
    fail = false;
    await expect(cache.lookup(WORKSPACE, 'fake')).resolves.toBeInstanceOf(WorkspaceCredential);
  });

  it('does not keep a read that found no key: a key stored meanwhile (on another replica) is used by the next run', async () => {
    let stored: WorkspaceCredential | null = null;
    const cache = new WorkspaceCredentialCache(async () => stored);
    await expect(cache.lookup(WORKSPACE, 'fake')).resolves.toBeNull();
    stored = credential();
    await expect(cache.lookup(WORKSPACE, 'fake')).resolves.toBe(stored);
  });
});

describe('ProviderRegistry on workspace keys', () => {
  const registry = () =>
    new ProviderRegistry(providerSettingsFromEnv({ FAKE_BASE_URL: 'http://127.0.0.1:9/v1', FAKE_API_KEY: 'operator-key' }));

  it('builds one model per key version: the same version shares it, a replaced key gets a new one, the operator’s key its own', () => {
    const providers = registry();
    const first = providers.languageModel({ ...ROUTE, workspaceCredential: credential('v1') });
    expect(providers.languageModel({ ...ROUTE, workspaceCredential: credential('v1') })).toBe(first);
    const replaced = providers.languageModel({ ...ROUTE, workspaceCredential: credential('v2', 'sk-replaced-key-000000') });
    expect(replaced).not.toBe(first);
    expect(providers.languageModel(ROUTE)).not.toBe(first);
  });

  it('gives the lean chat model the same way, for OpenAI-compatible routes only, and none when the SDK is asked for', () => {
    const providers = registry();
    const first = providers.chatModel({ ...ROUTE, workspaceCredential: credential('v1') });
    expect(first).toBeDefined();
    expect(providers.chatModel({ ...ROUTE, workspaceCredential: credential('v1') })).toBe(first);
    expect(providers.chatModel({ ...ROUTE, workspaceCredential: credential('v2', 'sk-replaced-key-000000') })).not.toBe(first);
    expect(providers.chatModel(ROUTE)).toBe(providers.chatModel(ROUTE));
    expect(providers.chatModel(ROUTE)).not.toBe(first);
    const anthropic: ModelRoute = { ...ROUTE, provider: 'anthropic', providerApi: 'anthropic' };
    const openai: ModelRoute = { ...ROUTE, provider: 'openai', providerApi: 'openai' };
    expect(providers.chatModel(anthropic)).toBeUndefined();
    expect(providers.chatModel(openai)).toBeUndefined();
    const sdk = new ProviderRegistry(providerSettingsFromEnv({ FAKE_BASE_URL: 'http://127.0.0.1:9/v1', FAKE_API_KEY: 'k' }), {
      openAIChat: 'sdk',
    });
    expect(sdk.chatModel(ROUTE)).toBeUndefined();
  });

  it('keeps a bounded number of workspace providers', () => {
    const providers = registry();
    for (let index = 0; index < 300; index += 1) providers.languageModel({ ...ROUTE, workspaceCredential: credential(`v${index}`) });
    expect(providers.workspaceProviderCount).toBe(256);
  });
});
