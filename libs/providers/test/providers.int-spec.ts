import { WaggleException } from '@waggle/errors';
import { createServer, type AddressInfo } from 'node:net';
import { FakeProviderServer, type FakeRequestRecord } from '@waggle/fake-provider';
import {
  complete,
  isAbortError,
  ProviderRegistry,
  providerSettingsFromEnv,
  routeProviderWarnings,
  stream,
  type ModelRoute,
  type PromptCall,
  type StreamPart,
} from '../src';

const SECRETS = { FAKE_API_KEY: 'fake-key-secret-1', ANTHROPIC_API_KEY: 'sk-ant-secret-2', OPENAI_API_KEY: 'sk-openai-secret-3' };

interface ProviderPath {
  route: ModelRoute;
  /** @ai-sdk/openai's chat model does not read `reasoning_content` (OpenAI never sends it), so only its token count arrives. */
  reasoningText: boolean;
  /** Where the fake finds the request's parameters in each protocol's body. */
  body: { maxTokens: string; stop: string; reasoning: (record: FakeRequestRecord) => unknown };
}

const PATHS: Array<[string, ProviderPath]> = [
  [
    'openai-compatible',
    {
      route: {
        modelId: 'fake-reasoner',
        provider: 'fake',
        providerName: 'Fake Host',
        providerApi: 'openai-compatible',
        providerModelId: 'fake-model',
      },
      reasoningText: true,
      body: { maxTokens: 'max_tokens', stop: 'stop', reasoning: (record) => (record.body as Record<string, unknown>).reasoning_effort },
    },
  ],
  [
    'anthropic',
    {
      route: {
        modelId: 'claude-test',
        provider: 'anthropic',
        providerName: 'Anthropic',
        providerApi: 'anthropic',
        providerModelId: 'claude-fake',
      },
      reasoningText: true,
      body: { maxTokens: 'max_tokens', stop: 'stop_sequences', reasoning: (record) => (record.body as Record<string, unknown>).thinking },
    },
  ],
  [
    'openai',
    {
      route: { modelId: 'gpt-test', provider: 'openai', providerName: 'OpenAI', providerApi: 'openai', providerModelId: 'gpt-4o-mini' },
      reasoningText: false,
      body: { maxTokens: 'max_tokens', stop: 'stop', reasoning: (record) => (record.body as Record<string, unknown>).reasoning_effort },
    },
  ],
];

const EXPECTED_REASONING_PARAM: Record<string, unknown> = {
  'openai-compatible': 'high',
  anthropic: { type: 'enabled', budget_tokens: 1024 },
  openai: 'high',
};

describe('provider layer against the fake provider over HTTP', () => {
  const server = new FakeProviderServer();
  const warnings: string[] = [];
  let registry: ProviderRegistry;

  beforeAll(async () => {
    routeProviderWarnings(({ warnings: list, provider }) =>
      warnings.push(...list.map((warning) => `${provider}:${warning.type}:${'feature' in warning ? warning.feature : warning.message}`)),
    );
    const url = await server.start();
    registry = new ProviderRegistry(
      providerSettingsFromEnv({
        ...SECRETS,
        FAKE_BASE_URL: `${url}/v1`,
        ANTHROPIC_BASE_URL: `${url}/v1`,
        OPENAI_BASE_URL: `${url}/v1`,
        PROVIDER_MAX_RETRIES: '0',
      }),
    );
  });
  afterAll(async () => {
    routeProviderWarnings(false);
    await server.stop();
  });
  afterEach(() => {
    server.reset();
    warnings.length = 0;
  });

  // A max token count keeps the Anthropic SDK from warning about a model it does not know.
  const call = (text: string, extra: Partial<PromptCall> = {}): PromptCall => ({
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: text },
    ],
    ...extra,
    params: { maxOutputTokens: 1_000, ...extra.params },
  });

  async function collect(parts: AsyncIterable<StreamPart>): Promise<{ parts: StreamPart[]; error?: unknown }> {
    const seen: StreamPart[] = [];
    try {
      for await (const part of parts) seen.push(part);
      return { parts: seen };
    } catch (error) {
      return { parts: seen, error };
    }
  }

  describe.each(PATHS)('%s', (name, { route, reasoningText, body }) => {
    const model = route.providerModelId;

    it('answers the whole completion with reasoning, usage and stop reason', async () => {
      server.setModel(model, {
        response: 'The answer is four.',
        reasoning: 'Two plus two.',
        usage: { promptTokens: 50, cachedTokens: 20 },
      });
      const result = await complete(registry, route, call('What is 2+2?'));
      expect(result).toEqual({
        response: 'The answer is four.',
        reasoning: reasoningText ? 'Two plus two.' : '',
        usage: {
          prompt_tokens: { total_tokens: 50, cached_tokens: 20 },
          completion_tokens: { total_tokens: 7, reasoning_tokens: 3 },
          total_tokens: 57,
        },
        stopReason: 'completed',
        model: route.modelId,
      });
      const [record] = server.requests;
      expect(record).toMatchObject({ model, stream: false, aborted: false });
      expect(JSON.stringify(server.requests)).not.toMatch(/secret-\d/);
    });

    it('sends the prompt parameters in the protocol', async () => {
      await complete(
        registry,
        route,
        call('go', { params: { temperature: 0.3, stop: ['never'], reasoningEffort: 'high', thinkingBudget: 1024 } }),
      );
      const [record] = server.requests;
      const sent = record.body as Record<string, unknown>;
      expect(sent[body.stop]).toEqual(['never']);
      expect(body.reasoning(record)).toEqual(EXPECTED_REASONING_PARAM[name]);
      // Anthropic refuses a temperature while extended thinking is on, so the SDK drops it there
      // and says so through the routed warnings rather than the console.
      if (name !== 'anthropic') expect(sent.temperature).toBe(0.3);
      else expect(warnings).toContain('anthropic.messages:unsupported:temperature');
    });

    it('reports max_tokens when the answer is cut at the output limit', async () => {
      server.setModel(model, { response: 'one two three four five six' });
      const result = await complete(registry, route, call('count', { params: { maxOutputTokens: 4 } }));
      expect(result).toMatchObject({ response: 'one two three four ', stopReason: 'max_tokens' });
      expect((server.requests[0].body as Record<string, unknown>)[body.maxTokens]).toBe(4);
    });

    it('streams reasoning fragments, then response fragments, then one finish', async () => {
      server.setModel(model, { response: 'Paris is the capital.', reasoning: 'Recall geography.', usage: { cachedTokens: 2 } });
      const { parts, error } = await collect(stream(registry, route, call('Capital of France?')));
      expect(error).toBeUndefined();
      const fragments = parts.filter((part) => part.type !== 'finish') as Array<{ type: string; text: string }>;
      expect(fragments.filter((part) => part.type === 'response').map((part) => part.text)).toEqual(['Paris ', 'is ', 'the ', 'capital.']);
      const reasoning = fragments.filter((part) => part.type === 'reasoning').map((part) => part.text);
      expect(reasoning).toEqual(reasoningText ? ['Recall ', 'geography.'] : []);
      const kinds = parts.map((part) => part.type);
      expect(kinds.lastIndexOf('reasoning')).toBeLessThan(kinds.indexOf('response'));
      expect(parts.at(-1)).toEqual({
        type: 'finish',
        stopReason: 'completed',
        usage: {
          prompt_tokens: { total_tokens: 6, cached_tokens: 2 },
          completion_tokens: { total_tokens: 6, reasoning_tokens: 2 },
          total_tokens: 12,
        },
      });
      expect(kinds.filter((kind) => kind === 'finish')).toHaveLength(1);
    });

    it('yields the first fragment before the provider has finished the answer', async () => {
      // A minute between fragments: the answer cannot finish while the test looks at it.
      server.setModel(model, { response: 'a b c d e f', tokenDelayMs: 60_000 });
      const iterator = stream(registry, route, call('slowly'))[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.value).toEqual({ type: 'response', text: 'a ' });
      expect(server.requests[0].finishedAt).toBeUndefined();
      // Leaving early must not leave the provider generating.
      await iterator.return?.();
      await expect(server.waitForRequest((record) => record.aborted, 10_000)).resolves.toMatchObject({ model });
    });

    it.each([429, 500])('turns an HTTP %s into provider_error naming the provider', async (status) => {
      server.setModel(model, { error: { status } });
      const failure = await complete(registry, route, call('x')).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WaggleException);
      expect(failure).toMatchObject({ code: 'provider_error', status: 502, details: { provider: route.provider, status } });
      expect((failure as Error).message).toMatch(new RegExp(`^${route.providerName} request failed: .*HTTP ${status}`));

      const streamed = await collect(stream(registry, route, call('x')));
      expect(streamed.parts).toEqual([]);
      expect(streamed.error).toMatchObject({ code: 'provider_error', details: { provider: route.provider, status } });
    });

    it('turns a stream broken mid-way into provider_error from the iterator, after the first fragments', async () => {
      server.setModel(model, { response: 'a b c d e f', failAfterFragments: 2 });
      const { parts, error } = await collect(stream(registry, route, call('x')));
      expect(parts).toEqual([
        { type: 'response', text: 'a ' },
        { type: 'response', text: 'b ' },
      ]);
      expect(error).toBeInstanceOf(WaggleException);
      expect(error).toMatchObject({ code: 'provider_error', details: { provider: route.provider } });
      expect((error as Error).message).toMatch(new RegExp(`^${route.providerName} request failed: `));
    });

    it('aborting a streaming call ends the provider request and surfaces as an abort, not provider_error', async () => {
      // 50 s of fragments: only the abort can end it early, and a finished stream is not marked aborted.
      server.setModel(model, { response: 'word '.repeat(1_000), tokenDelayMs: 50 });
      const controller = new AbortController();
      const seen: StreamPart[] = [];
      let failure: unknown;
      try {
        for await (const part of stream(registry, route, call('x', { abortSignal: controller.signal }))) {
          seen.push(part);
          if (seen.length === 2) controller.abort();
        }
      } catch (error) {
        failure = error;
      }
      expect(failure).not.toBeInstanceOf(WaggleException);
      expect(isAbortError(failure)).toBe(true);
      const record = await server.waitForRequest((candidate) => candidate.aborted, 10_000);
      expect(record.finishedAt).toBeUndefined();
    });

    it('aborting a whole call ends the provider request and rejects with the signal reason', async () => {
      server.setModel(model, { latencyMs: 60_000 });
      const controller = new AbortController();
      const pending = complete(registry, route, call('x', { abortSignal: controller.signal })).catch((error: unknown) => error);
      await server.waitForRequest((record) => record.model === model);
      const reason = new Error('client disconnected');
      controller.abort(reason);
      expect(await pending).toBe(reason);
      await expect(server.waitForRequest((record) => record.aborted, 10_000)).resolves.toMatchObject({ model, stream: false });
    });

    it('passes an image URL to the provider as a URL', async () => {
      await complete(registry, route, {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', image: new URL('https://example.com/cat.png') },
            ],
          },
        ],
        params: { maxOutputTokens: 100 },
      });
      expect(JSON.stringify(server.requests[0].body)).toContain('https://example.com/cat.png');
    });
  });

  it.each(PATHS)('%s: asks for a JSON schema and answers the raw text, whole or streamed', async (name, { route }) => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    server.setModel(route.providerModelId, { response: '{"city": "Paris"}' });
    const jsonCall = call('city?', { params: { responseFormat: { type: 'json_schema', name: 'place', schema } } });
    expect((await complete(registry, route, jsonCall)).response).toBe('{"city": "Paris"}');
    const sent = server.requests[0].body as Record<string, unknown>;
    if (name === 'anthropic') {
      expect(sent.output_config).toMatchObject({ format: { type: 'json_schema', schema: expect.objectContaining({ type: 'object' }) } });
    } else {
      expect(sent.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { name: 'place', schema: expect.objectContaining({ type: 'object' }) },
      });
    }
    const { parts, error } = await collect(stream(registry, route, jsonCall));
    expect(error).toBeUndefined();
    expect(parts.flatMap((part) => (part.type === 'response' ? [part.text] : [])).join('')).toBe('{"city": "Paris"}');
  });

  it('refuses a provider without credentials with config_error before any request', async () => {
    const bare = new ProviderRegistry(providerSettingsFromEnv({}));
    const route = PATHS[1][1].route;
    expect(() => stream(bare, route, call('x'))).toThrow(WaggleException);
    await expect(complete(bare, route, call('x'))).rejects.toMatchObject({
      code: 'config_error',
      message: 'No credentials configured for provider Anthropic',
    });
    expect(server.requests).toEqual([]);
  });

  it('turns a provider that does not answer at all into provider_error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = new ProviderRegistry(
      providerSettingsFromEnv({ DOWN_API_KEY: 'k', DOWN_BASE_URL: `http://127.0.0.1:${port}/v1`, PROVIDER_MAX_RETRIES: '0' }),
    );
    const route: ModelRoute = {
      modelId: 'm',
      provider: 'down',
      providerName: 'Down Host',
      providerApi: 'openai-compatible',
      providerModelId: 'm',
    };
    await expect(complete(down, route, call('x'))).rejects.toMatchObject({
      code: 'provider_error',
      message: 'Down Host request failed: could not connect',
      details: { provider: 'down' },
    });
  });
});
