import { WaggleException } from '@waggle/errors';
import { createServer, type AddressInfo } from 'node:net';
import { fakeEmbedding, FakeProviderServer, type FakeRequestRecord } from '@waggle/fake-provider';
import {
  complete,
  embedTexts,
  isAbortError,
  ProviderRegistry,
  providerSettingsFromEnv,
  routeProviderWarnings,
  stream,
  toolResultsMessage,
  type RouteCompletion,
  type ModelRoute,
  type PromptCall,
  type PromptMessage,
  type StreamPart,
  type ToolCall,
  type ToolChoice,
  type ToolDefinition,
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
        PROVIDER_MAX_RETRIES: 0,
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
        toolCalls: [],
        responseMessages: [{ role: 'assistant', content: expect.arrayContaining([{ type: 'text', text: 'The answer is four.' }]) }],
        usage: {
          prompt_tokens: { total_tokens: 50, cached_tokens: 20 },
          completion_tokens: { total_tokens: 7, reasoning_tokens: 3 },
          total_tokens: 57,
        },
        stopReason: 'completed',
        model: route.modelId,
        // A route without a price charges nothing (priced calls: cost.spec.ts and the usage-cost e2e).
        cost: { picoUsd: 0, priceVersion: null, credentials: 'hosted' },
      });
      const [record] = server.requests;
      expect(record).toMatchObject({ model, stream: false, aborted: false });
      // Called with the operator's key for the provider (the fake provider records which key called it).
      expect(Object.values(SECRETS)).toContain(record.apiKey);
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
        responseMessages: [expect.objectContaining({ role: 'assistant' })],
        usage: {
          prompt_tokens: { total_tokens: 6, cached_tokens: 2 },
          completion_tokens: { total_tokens: 6, reasoning_tokens: 2 },
          total_tokens: 12,
        },
        cost: { picoUsd: 0, priceVersion: null, credentials: 'hosted' },
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

  describe.each(PATHS)('%s: tool calls over several turns', (name, { route }) => {
    const model = route.providerModelId;
    const tools: ToolDefinition[] = [
      {
        name: 'get_weather',
        description: 'Current weather in a city',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
      { name: 'get_time', inputSchema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
    ];
    /** Turn 1 asks for one tool, turn 2 for two at once, turn 3 answers. */
    const script = () =>
      server.setModel(model, {
        turns: [
          { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
          {
            response: 'Checking both.',
            toolCalls: [
              { name: 'get_time', arguments: { zone: 'CET' } },
              { name: 'get_weather', arguments: { city: 'Rome' } },
            ],
          },
        ],
        response: 'Sunny in Paris and Rome at noon.',
      });
    /** What the caller's own tool loop would run: a result per call, one failing. */
    const runTools = (calls: ToolCall[]) =>
      toolResultsMessage(
        calls.map((toolCall) =>
          toolCall.toolName === 'get_time'
            ? { toolCallId: toolCall.toolCallId, toolName: toolCall.toolName, output: 'clock unavailable', isError: true }
            : {
                toolCallId: toolCall.toolCallId,
                toolName: toolCall.toolName,
                output: { city: (toolCall.input as { city: string }).city, sky: 'sunny' },
              },
        ),
      );
    const EXPECTED_CALLS: ToolCall[][] = [
      [{ toolCallId: 'call_fake_0_0', toolName: 'get_weather', input: { city: 'Paris' } }],
      [
        { toolCallId: 'call_fake_1_0', toolName: 'get_time', input: { zone: 'CET' } },
        { toolCallId: 'call_fake_1_1', toolName: 'get_weather', input: { city: 'Rome' } },
      ],
    ];

    function expectToolsOnTheWire() {
      const bodies = server.requests.map((record) => record.body as Record<string, unknown>);
      const sentNames = bodies.map((body) =>
        (body.tools as Array<Record<string, unknown>>).map((entry) =>
          name === 'anthropic' ? entry.name : (entry.function as { name: string }).name,
        ),
      );
      expect(sentNames).toEqual([
        ['get_weather', 'get_time'],
        ['get_weather', 'get_time'],
        ['get_weather', 'get_time'],
      ]);
      expect(server.requests.map((record) => record.toolRounds)).toEqual([0, 1, 2]);
      // The last request carries every result, the failing one included.
      const last = JSON.stringify(bodies[2]);
      expect(last).toContain('clock unavailable');
      expect(last).toContain('sunny');
      expect(last).toContain('call_fake_1_1');
    }

    it('answers tool-call parts turn by turn, taking the results back, until the final answer', async () => {
      script();
      const messages: PromptMessage[] = [{ role: 'user', content: 'Weather and time in Paris and Rome?' }];
      const turns: RouteCompletion[] = [];
      for (let turn = 0; turn < 3; turn += 1) {
        const result = await complete(registry, route, { messages, tools, params: { maxOutputTokens: 1_000 } });
        turns.push(result);
        if (result.toolCalls.length === 0) break;
        messages.push(...result.responseMessages, runTools(result.toolCalls));
      }
      expect(turns.map((turn) => turn.toolCalls)).toEqual([...EXPECTED_CALLS, []]);
      expect(turns.map((turn) => turn.stopReason)).toEqual(['tool_calls', 'tool_calls', 'completed']);
      expect(turns.map((turn) => turn.response)).toEqual(['', 'Checking both.', 'Sunny in Paris and Rome at noon.']);
      expectToolsOnTheWire();
    });

    it('streams tool-call parts whole, finishing with tool_calls, across the same turns', async () => {
      script();
      const messages: PromptMessage[] = [{ role: 'user', content: 'Weather and time in Paris and Rome?' }];
      const turns: StreamPart[][] = [];
      for (let turn = 0; turn < 3; turn += 1) {
        const { parts, error } = await collect(stream(registry, route, { messages, tools, params: { maxOutputTokens: 1_000 } }));
        expect(error).toBeUndefined();
        turns.push(parts);
        const finish = parts.at(-1) as Extract<StreamPart, { type: 'finish' }>;
        const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []));
        if (calls.length === 0) break;
        messages.push(...finish.responseMessages, runTools(calls));
      }
      expect(turns.map((parts) => parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : [])))).toEqual([
        ...EXPECTED_CALLS,
        [],
      ]);
      expect(turns.map((parts) => (parts.at(-1) as { stopReason: string }).stopReason)).toEqual(['tool_calls', 'tool_calls', 'completed']);
      expect(server.requests.every((record) => record.stream)).toBe(true);
      expectToolsOnTheWire();
    });

    const EXPECTED_TOOL_CHOICE: Record<string, Array<[ToolChoice, unknown]>> = {
      anthropic: [
        ['auto', { type: 'auto' }],
        ['none', { type: 'none' }],
        ['required', { type: 'any' }],
        [
          { type: 'tool', toolName: 'get_time' },
          { type: 'tool', name: 'get_time' },
        ],
      ],
      openai: [
        ['auto', 'auto'],
        ['none', 'none'],
        ['required', 'required'],
        [
          { type: 'tool', toolName: 'get_time' },
          { type: 'function', function: { name: 'get_time' } },
        ],
      ],
    };

    it('maps each tool choice to the protocol, and refuses one naming a tool not offered', async () => {
      const expected = EXPECTED_TOOL_CHOICE[name === 'anthropic' ? 'anthropic' : 'openai'];
      // The fake does not read tool_choice; a scripted call keeps every answer valid under each choice.
      server.setModel(model, { turns: [{ toolCalls: [{ name: 'get_time', arguments: { zone: 'UTC' } }] }] });
      for (const [toolChoice] of expected) await complete(registry, route, call('x', { tools, toolChoice }));
      expect(server.requests.map((record) => (record.body as Record<string, unknown>).tool_choice)).toEqual(
        expected.map(([, sent]) => sent),
      );
      await expect(complete(registry, route, call('x', { tools, toolChoice: { type: 'tool', toolName: 'launch' } }))).rejects.toMatchObject(
        {
          code: 'validation_error',
        },
      );
      expect(server.requests).toHaveLength(expected.length);
    });
  });

  it.each(PATHS)('%s: passes inline images as base64 and URL images as URLs', async (name, { route }) => {
    const pixel = Buffer.from('fake-png-bytes');
    await complete(registry, route, {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these' },
            { type: 'image', image: pixel, mediaType: 'image/png' },
            { type: 'image', image: new URL('https://example.com/dog.jpg') },
            { type: 'image', image: new URL(`data:image/jpeg;base64,${pixel.toString('base64')}`) },
          ],
        },
      ],
      params: { maxOutputTokens: 100 },
    });
    expect(server.requests[0].images).toEqual([
      { source: 'base64', mediaType: 'image/png', data: pixel.toString('base64') },
      { source: 'url', url: 'https://example.com/dog.jpg' },
      { source: 'base64', mediaType: 'image/jpeg', data: pixel.toString('base64') },
    ]);
  });

  describe('Anthropic prompt caching', () => {
    const anthropic = PATHS[1][1].route;
    const history: PromptMessage[] = [
      { role: 'system', content: 'You are a meticulous support agent with a long policy.' },
      { role: 'user', content: 'My order is late.' },
      { role: 'assistant', content: 'Which order?' },
      { role: 'user', content: [{ type: 'text', text: 'Order 42' }] },
    ];

    it('marks the system prompt and the last message as cache breakpoints and reports cached tokens', async () => {
      server.setModel(anthropic.providerModelId, { usage: { promptTokens: 120, cachedTokens: 100 } });
      const result = await complete(registry, anthropic, {
        messages: history,
        params: { maxOutputTokens: 100, promptCache: { ttl: '1h' } },
      });
      const sent = server.requests[0].body as {
        system: Array<Record<string, unknown>>;
        messages: Array<{ content: Array<Record<string, unknown>> }>;
      };
      expect(sent.system).toEqual([{ type: 'text', text: history[0].content, cache_control: { type: 'ephemeral', ttl: '1h' } }]);
      expect(sent.messages.at(-1)?.content.at(-1)).toEqual({
        type: 'text',
        text: 'Order 42',
        cache_control: { type: 'ephemeral', ttl: '1h' },
      });
      expect(JSON.stringify(sent.messages.slice(0, -1))).not.toContain('cache_control');
      expect(result.usage.prompt_tokens).toEqual({ total_tokens: 120, cached_tokens: 100 });
      // The caller's messages are left as they were.
      expect(history[0]).not.toHaveProperty('providerOptions');
    });

    it('sends no cache breakpoints unless asked, and none to other protocols', async () => {
      await complete(registry, anthropic, { messages: history, params: { maxOutputTokens: 100 } });
      await complete(registry, PATHS[0][1].route, { messages: history, params: { promptCache: { ttl: '5m' } } });
      expect(JSON.stringify(server.requests.map((record) => record.body))).not.toContain('cache_control');
    });
  });

  describe.each(PATHS.filter(([name]) => name !== 'anthropic'))('%s embeddings', (name, { route: chatRoute }) => {
    const route: ModelRoute = { ...chatRoute, modelId: `${name}-embedder`, providerModelId: 'text-embedding-fake' };

    it('embeds many texts in order as deterministic unit vectors of the asked dimensions', async () => {
      const texts = ['Refunds take up to 14 days', 'how long do refunds take', 'The cat sleeps on the printer'];
      const result = await embedTexts(registry, route, { values: texts, dimensions: 64 });
      expect(result).toEqual({ embeddings: texts.map((text) => fakeEmbedding(text, 64)), tokens: 17, model: route.modelId });
      const [record] = server.requests;
      expect(record).toMatchObject({ path: '/v1/embeddings', model: 'text-embedding-fake', body: { input: texts, dimensions: 64 } });
      const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index], 0);
      const [policy, question, cat] = result.embeddings;
      expect(cosine(question, policy)).toBeGreaterThan(cosine(question, cat));
    });

    it('embeds one text with the scripted default dimensions', async () => {
      server.setModel('text-embedding-fake', { embeddingDimensions: 32 });
      const result = await embedTexts(registry, route, { values: ['hello world'] });
      expect(result.embeddings).toEqual([fakeEmbedding('hello world', 32)]);
      expect(result.tokens).toBe(2);
      expect((server.requests[0].body as Record<string, unknown>).input).toEqual(['hello world']);
    });

    it('turns a scripted error into provider_error naming the provider', async () => {
      server.setModel('text-embedding-fake', { error: { status: 500 } });
      await expect(embedTexts(registry, route, { values: ['x', 'y'] })).rejects.toMatchObject({
        code: 'provider_error',
        details: { provider: route.provider, status: 500 },
      });
    });
  });

  it('refuses embeddings on a provider without an embeddings API with config_error before any request', async () => {
    await expect(embedTexts(registry, PATHS[1][1].route, { values: ['x'] })).rejects.toMatchObject({
      code: 'config_error',
      message: 'Provider Anthropic offers no embedding models',
    });
    expect(server.requests).toEqual([]);
  });

  it.each(PATHS)('%s: asks natively for a JSON schema and answers the raw text, whole or streamed', async (name, { route }) => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const native = { ...route, nativeJsonSchema: true };
    server.setModel(route.providerModelId, { json: { answer: 'valid', value: { city: 'Paris' } } });
    const jsonCall = call('city?', { params: { responseFormat: { type: 'json_schema', name: 'place', schema } } });
    expect(JSON.parse((await complete(registry, native, jsonCall)).response)).toEqual({ city: 'Paris' });
    const sent = server.requests[0].body as Record<string, unknown>;
    if (name === 'anthropic') {
      // Tool-forced output: a `json` tool whose input schema is the response format's.
      expect(server.requests[0].structured).toBe('json_tool');
      expect(sent.tools).toEqual([expect.objectContaining({ name: 'json', input_schema: expect.objectContaining({ type: 'object' }) })]);
    } else {
      expect(sent.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { name: 'place', schema: expect.objectContaining({ type: 'object' }), strict: false },
      });
    }
    const { parts, error } = await collect(stream(registry, native, jsonCall));
    expect(error).toBeUndefined();
    expect(JSON.parse(parts.flatMap((part) => (part.type === 'response' ? [part.text] : [])).join(''))).toEqual({ city: 'Paris' });
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
    const down = new ProviderRegistry({ endpoints: { DOWN: { apiKey: 'k', baseURL: `http://127.0.0.1:${port}/v1` } }, maxRetries: 0 });
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
