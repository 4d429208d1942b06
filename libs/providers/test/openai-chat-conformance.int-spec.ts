import { WaggleException } from '@waggle/errors';
import { FakeProviderServer, type FakeBehaviour } from '@waggle/fake-provider';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ModelRun,
  ProviderRegistry,
  RunCost,
  toolResultsMessage,
  type CompletionResult,
  type ModelRoute,
  type PromptCall,
  type PromptMessage,
  type ProviderSettings,
  type StreamPart,
  type ToolDefinition,
} from '../src';
import { OpenAIChatModel } from '../src/openai-chat/client';

/**
 * The same calls through the provider layer on the AI SDK's OpenAI-compatible provider and on
 * the lean chat-completions client, against the fake provider (and, for answers the fake does
 * not give, a small host of our own), over sockets: each case must end the same way on both
 * (the result or every streamed part, usage, cost, finish reason, tool calls, response
 * messages, the error and its attempt record) and send the host the same request bodies.
 */

const PRICING = { input: 2, cached_input: 1, cache_write: 3, output: 8, reasoning: null, price_version: '2026-11-01' };
const ROUTE: ModelRoute = {
  modelId: 'fake-chat',
  provider: 'fake',
  providerName: 'Fake Host',
  providerApi: 'openai-compatible',
  providerModelId: 'fake-model',
  pricing: PRICING,
};
const NATIVE_JSON: ModelRoute = { ...ROUTE, modelId: 'fake-json', nativeJsonSchema: true };
const RAW: ModelRoute = { ...ROUTE, modelId: 'raw-chat', provider: 'raw', providerName: 'Raw Host' };

const TOOLS: ToolDefinition[] = [
  {
    name: 'get_weather',
    description: 'The weather in a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  { name: 'get_time', inputSchema: { type: 'object', properties: { zone: { type: 'string' } } } },
];

type Json = Record<string, unknown>;

/** Answers the host of our own gives, by model id: what the fake provider cannot script. */
const RAW_ANSWERS: Record<string, (body: Json, response: ServerResponse) => void> = {
  'not-json': (_body, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [ no'),
  'wrong-shape': (_body, response) => json(response, 200, { id: 'x', choices: 'none' }),
  'no-choices': (_body, response) => json(response, 200, { id: 'x', choices: [] }),
  'empty-500': (_body, response) => response.writeHead(500).end(),
  'html-502': (_body, response) => response.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>'),
  'content-filter': (body, response) =>
    body.stream
      ? events(response, [
          chunk({ role: 'assistant', content: 'Par' }),
          chunk({ content: 'tial' }),
          chunk({}, 'content_filter'),
          usage(),
          '[DONE]',
        ])
      : json(response, 200, completion({ role: 'assistant', content: 'Partial' }, 'content_filter')),
  'error-event': (_body, response) =>
    events(response, [
      chunk({ role: 'assistant', content: 'Hel' }),
      { error: { message: 'The engine is overloaded.', type: 'server_error' } },
    ]),
  'bad-chunk': (_body, response) => events(response, [chunk({ content: 'Hel' }), '{"choices": [ no']),
  'no-finish': (_body, response) => events(response, [chunk({ role: 'assistant', content: 'Hello' }), usage(), '[DONE]']),
  // CRLF line ends, events split across writes, `reasoning` rather than `reasoning_content`, a
  // call whose name comes after its first arguments, and calls out of index order.
  'odd-stream': (_body, response) => {
    const text = [
      chunk({ role: 'assistant', reasoning: 'Think' }),
      chunk({ reasoning: 'ing.' }),
      chunk({ content: 'Calling.' }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', function: { arguments: '{"zone":' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { name: 'get_time', arguments: '"CET"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':"Oslo"}' } }] }),
      chunk({}, 'tool_calls'),
      usage(),
      '[DONE]',
    ]
      .map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\r\n\r\n`)
      .join('');
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let start = 0; start < text.length; start += 37) response.write(text.slice(start, start + 37));
    response.end();
  },
};

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** An answer of our host: a chunk or a whole completion, with its choices and any more fields. */
function answer(object: string, choices: Json[], extra: Json = {}): Json {
  return { id: 'chatcmpl-raw', object, created: 1, model: 'raw', choices, ...extra };
}

function chunk(delta: Json, finishReason: string | null = null): Json {
  return answer('chat.completion.chunk', [{ index: 0, delta, finish_reason: finishReason }]);
}

function usage(): Json {
  return answer('chat.completion.chunk', [], {
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, completion_tokens_details: { reasoning_tokens: 2 } },
  });
}

function completion(message: Json, finishReason: string): Json {
  return answer('chat.completion', [{ index: 0, message, finish_reason: finishReason }], {
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 4 } },
  });
}

function events(response: ServerResponse, list: Array<Json | string>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of list) response.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);
  response.end();
}

/** How one call ended, everything that may not differ between the two clients. */
interface Outcome {
  result?: Omit<CompletionResult, 'attempts'>;
  parts?: StreamPart[];
  error?: unknown;
  attempts: unknown[];
  cost: unknown;
  bodies: unknown[];
}

describe('OpenAI chat protocol: the lean client against the AI SDK', () => {
  const server = new FakeProviderServer();
  const rawBodies: Json[] = [];
  let raw: Server;
  let settings: ProviderSettings;
  const registries = (maxRetries: number) => ({
    sdk: new ProviderRegistry({ ...settings, maxRetries }, { openAIChat: 'sdk' }),
    lean: new ProviderRegistry({ ...settings, maxRetries }, { openAIChat: 'lean' }),
  });

  beforeAll(async () => {
    const url = await server.start();
    raw = createServer((request: IncomingMessage, response: ServerResponse) => {
      let text = '';
      request.setEncoding('utf8');
      request.on('data', (piece: string) => (text += piece));
      request.on('end', () => {
        const body = JSON.parse(text) as Json;
        rawBodies.push(body);
        RAW_ANSWERS[body.model as string](body, response);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`;
    settings = {
      endpoints: { FAKE: { apiKey: 'fake-key', baseURL: `${url}/v1` }, RAW: { apiKey: 'raw-key', baseURL: rawUrl } },
      maxRetries: 0,
    };
  });
  afterAll(async () => {
    await server.stop();
    await new Promise((resolve) => raw.close(resolve));
  });

  /** The call through one registry, as a run makes it (ModelRun: attempts and cost included). */
  async function run(registry: ProviderRegistry, route: ModelRoute, call: PromptCall, streamed: boolean): Promise<Omit<Outcome, 'bodies'>> {
    const cost = new RunCost();
    const models = new ModelRun(registry, [route], cost);
    const outcome: Omit<Outcome, 'bodies'> = { attempts: [], cost: undefined };
    try {
      if (streamed) {
        outcome.parts = [];
        for await (const part of models.stream(call)) outcome.parts.push(part);
      } else {
        const { attempts: _attempts, ...result } = await models.complete(call);
        outcome.result = result;
      }
    } catch (error) {
      outcome.error = error instanceof WaggleException ? { exception: error.toWire() } : error;
    }
    outcome.attempts = models.attempts.map(({ duration_ms: _duration, ...attempt }) => attempt);
    outcome.cost = cost.part();
    return outcome;
  }

  /** The call on the SDK and on the lean client, each after the same script: both must end alike. */
  async function conform(
    call: PromptCall,
    {
      streamed,
      route = ROUTE,
      script = {},
      maxRetries = 0,
    }: { streamed: boolean; route?: ModelRoute; script?: Partial<FakeBehaviour>; maxRetries?: number },
  ): Promise<Outcome> {
    const { sdk, lean } = registries(maxRetries);
    const outcomes: Outcome[] = [];
    // Observed, not replaced: the lean run must really be the lean client's, the SDK's not.
    const leanCalls = jest.spyOn(OpenAIChatModel.prototype, streamed ? 'stream' : 'generate');
    const used: number[] = [];
    for (const registry of [sdk, lean]) {
      server.reset();
      rawBodies.length = 0;
      server.setModel(route.providerModelId, script);
      leanCalls.mockClear();
      const outcome = await run(registry, route, call, streamed);
      used.push(leanCalls.mock.calls.length);
      const bodies = route.provider === 'raw' ? [...rawBodies] : server.requests.map((record) => record.body);
      outcomes.push({ ...outcome, bodies });
    }
    leanCalls.mockRestore();
    expect(used).toEqual([0, 1]);
    expect(outcomes[1]).toEqual(outcomes[0]);
    return outcomes[0];
  }

  const ask = (text: string, extra: Partial<PromptCall> = {}): PromptCall => ({
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: text },
    ],
    ...extra,
  });

  describe.each([
    ['whole', false],
    ['streamed', true],
  ])('%s', (_name, streamed) => {
    it('a plain answer with usage, cached and reasoning tokens', async () => {
      const outcome = await conform(ask('What is 2+2?'), {
        streamed,
        script: { response: 'It is four.', usage: { promptTokens: 50, cachedTokens: 20, reasoningTokens: 7, completionTokens: 30 } },
      });
      const finish = streamed ? outcome.parts?.at(-1) : outcome.result;
      expect(finish).toMatchObject({
        usage: {
          prompt_tokens: { total_tokens: 50, cached_tokens: 20 },
          completion_tokens: { total_tokens: 30, reasoning_tokens: 7 },
          total_tokens: 80,
        },
        stopReason: 'completed',
      });
      if (streamed) expect(outcome.parts?.filter((part) => part.type === 'response').length).toBeGreaterThan(1);
    });

    it('reasoning before the answer', async () => {
      const outcome = await conform(ask('Think first.'), { streamed, script: { reasoning: 'Two plus two.', response: 'Four.' } });
      if (streamed) expect(outcome.parts?.[0]).toEqual({ type: 'reasoning', text: 'Two ' });
      else expect(outcome.result).toMatchObject({ reasoning: 'Two plus two.', response: 'Four.' });
    });

    it('the prompt parameters, an image by URL and the answer cut at max tokens', async () => {
      const call: PromptCall = {
        messages: [
          { role: 'system', content: 'Describe.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in it?' },
              { type: 'text', text: '' },
              { type: 'image', image: new URL('https://example.test/cat.png') },
            ],
          },
          { role: 'assistant', content: 'A cat?' },
          { role: 'user', content: [{ type: 'text', text: 'Sure?' }] },
        ],
        params: { temperature: 0.3, topP: 0.9, maxOutputTokens: 3, stop: ['never'], seed: 7, reasoningEffort: 'high' },
      };
      const outcome = await conform(call, { streamed, script: { response: 'one two three four five' } });
      expect(outcome.bodies[0]).toMatchObject({ reasoning_effort: 'high', seed: 7, max_tokens: 3, stop: ['never'], top_p: 0.9 });
      expect(streamed ? outcome.parts?.at(-1) : outcome.result).toMatchObject({ stopReason: 'max_tokens' });
    });

    it('a native JSON schema answer (structured output)', async () => {
      const responseFormat = {
        type: 'json_schema' as const,
        name: 'answer',
        schema: { type: 'object', properties: { value: { type: 'integer' } }, required: ['value'] },
        strict: true,
      };
      const outcome = await conform(ask('JSON please', { params: { responseFormat } }), {
        streamed,
        route: NATIVE_JSON,
        script: { json: { answer: 'valid', value: { value: 4 } } },
      });
      expect(outcome.bodies[0]).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true } } });
      expect(outcome.error).toBeUndefined();
    });

    it('tool calls turn by turn, with the results and response messages sent back', async () => {
      const script: Partial<FakeBehaviour> = {
        turns: [
          { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
          {
            response: 'Both.',
            toolCalls: [
              { name: 'get_time', arguments: { zone: 'CET' } },
              { name: 'get_weather', arguments: { city: 'Rome' } },
            ],
          },
        ],
        response: 'Sunny at noon.',
      };
      const { sdk, lean } = registries(0);
      const conversations: unknown[] = [];
      for (const registry of [sdk, lean]) {
        server.reset();
        server.setModel(ROUTE.providerModelId, script);
        let messages: PromptMessage[] = [{ role: 'user', content: 'Weather and time?' }];
        const turns: unknown[] = [];
        for (let turn = 0; turn < 3; turn += 1) {
          const outcome = await run(registry, ROUTE, { messages, tools: TOOLS }, streamed);
          turns.push(outcome);
          const calls = streamed
            ? (outcome.parts ?? []).flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []))
            : (outcome.result?.toolCalls ?? []);
          const finish = streamed ? outcome.parts?.find((part) => part.type === 'finish') : outcome.result;
          if (calls.length === 0 || !finish || !('responseMessages' in finish)) break;
          const results = calls.map((call) => ({ toolCallId: call.toolCallId, toolName: call.toolName, output: { ok: call.toolName } }));
          messages = [...messages, ...finish.responseMessages, toolResultsMessage(results)];
        }
        conversations.push({ turns, bodies: server.requests.map((record) => record.body) });
      }
      expect(conversations[1]).toEqual(conversations[0]);
      expect((conversations[0] as { turns: unknown[] }).turns).toHaveLength(3);
    });

    it.each([
      ['required', 'required' as const, { response: 'No tools needed.' }],
      ['none', 'none' as const, { turns: [{ toolCalls: [{ name: 'get_time', arguments: {} }] }] }],
      [
        'a named tool',
        { type: 'tool' as const, toolName: 'get_time' },
        { turns: [{ toolCalls: [{ name: 'get_time', arguments: { zone: 'UTC' } }] }] },
      ],
    ])('tool choice %s', async (_label, toolChoice, script) => {
      const outcome = await conform(ask('Time?', { tools: TOOLS, toolChoice }), { streamed, script });
      expect((outcome.bodies[0] as Json).tool_choice).toBeDefined();
    });

    it('a call of a tool not offered, and arguments that are not JSON, as invalid calls', async () => {
      const outcome = await conform(ask('Go', { tools: TOOLS }), {
        streamed,
        script: { turns: [{ toolCalls: [{ name: 'launch_rocket', arguments: { when: 'now' } }] }] },
      });
      const calls = streamed ? outcome.parts?.filter((part) => part.type === 'tool-call') : outcome.result?.toolCalls;
      expect(JSON.stringify(calls)).toContain('"invalid":true');
    });

    it.each([
      [400, 'The model cannot take images.'],
      [401, undefined],
      [404, undefined],
      [429, undefined],
      [500, undefined],
      [503, undefined],
    ])('a %s answer', async (status, message) => {
      const outcome = await conform(ask('x'), { streamed, script: { error: { status, ...(message && { message }) } } });
      expect(outcome.error).toMatchObject({ exception: { error_code: 'provider_error' } });
    });

    it('retries as the SDK does and reports every attempt', async () => {
      const outcome = await conform(ask('x'), { streamed, maxRetries: 2, script: { error: { status: 429, retryAfterSeconds: 0 } } });
      expect(outcome.bodies).toHaveLength(3);
      expect(JSON.stringify(outcome.error)).toContain('3');
    });

    it('a connection broken mid-way', async () => {
      const outcome = await conform(ask('x'), { streamed, script: { response: 'a b c d e f', failAfterFragments: 2 } });
      expect(outcome.attempts).toEqual([expect.objectContaining({ error_code: 'connection_failed' })]);
    });

    it.each([
      'not-json',
      'wrong-shape',
      'no-choices',
      'empty-500',
      'html-502',
      'content-filter',
      'error-event',
      'bad-chunk',
      'no-finish',
      'odd-stream',
    ])('a host answering %s', async (model) => {
      const outcome = await conform(ask('x', { tools: TOOLS }), { streamed, route: { ...RAW, providerModelId: model } });
      expect(outcome.bodies).toHaveLength(1);
    });
  });

  it('a host that is not there', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down: ProviderSettings = { endpoints: { DOWN: { apiKey: 'k', baseURL: `http://127.0.0.1:${port}/v1` } }, maxRetries: 0 };
    const route: ModelRoute = { ...ROUTE, provider: 'down', providerName: 'Down Host' };
    const outcomes = [];
    for (const openAIChat of ['sdk', 'lean'] as const) {
      for (const streamed of [false, true]) outcomes.push(await run(new ProviderRegistry(down, { openAIChat }), route, ask('x'), streamed));
    }
    expect(outcomes.slice(2)).toEqual(outcomes.slice(0, 2));
    expect(outcomes[0].attempts).toEqual([{ model: 'fake-chat', error_code: 'connection_failed' }]);
  });

  it('an abort mid-stream ends the request and charges the estimate alike', async () => {
    const { sdk, lean } = registries(0);
    const outcomes = [];
    for (const registry of [sdk, lean]) {
      server.reset();
      // 50 s of fragments: only the abort ends it early.
      server.setModel(ROUTE.providerModelId, { response: 'word '.repeat(1_000), tokenDelayMs: 50 });
      const controller = new AbortController();
      const reason = new Error('client went away');
      const cost = new RunCost();
      const parts: StreamPart[] = [];
      let failure: unknown;
      try {
        for await (const part of new ModelRun(registry, [ROUTE], cost).stream(ask('count', { abortSignal: controller.signal }))) {
          parts.push(part);
          if (parts.length === 2) controller.abort(reason);
        }
      } catch (error) {
        failure = error;
      }
      await server.waitForRequest((record) => record.aborted, 10_000);
      expect(failure).toBe(reason);
      outcomes.push({ parts, cost: cost.part() });
    }
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[0].parts).toHaveLength(2);
  });
});
