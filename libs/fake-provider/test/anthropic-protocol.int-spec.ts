import { createAnthropic } from '@ai-sdk/anthropic';
import { FakeProviderServer } from '../src';
import { APICallError, generateText, streamText } from 'ai';
import { parseSse, postJson } from './sse';

const HEADERS = { 'x-api-key': 'sk-ant-test-secret', 'anthropic-version': '2023-06-01' };

describe('fake provider: Anthropic messages', () => {
  const server = new FakeProviderServer();
  let url: string;

  beforeAll(async () => {
    url = await server.start();
  });
  afterAll(() => server.stop());
  afterEach(() => server.reset());

  const anthropic = () => createAnthropic({ baseURL: `${url}/v1`, apiKey: 'sk-ant-test-secret' });
  const request = (body: Record<string, unknown> = {}) => ({
    model: 'claude-fake',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'hello claude' }],
    ...body,
  });

  describe('over plain HTTP', () => {
    it('answers a message with thinking and text blocks, stop_reason and usage', async () => {
      server.setModel('claude-fake', { response: 'Hi!', reasoning: 'A greeting.', usage: { promptTokens: 50, cachedTokens: 30 } });
      const response = await postJson(`${url}/v1/messages`, request(), HEADERS);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        role: 'assistant',
        model: 'claude-fake',
        content: [
          { type: 'thinking', thinking: 'A greeting.', signature: expect.any(String) },
          { type: 'text', text: 'Hi!' },
        ],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: 20,
          cache_read_input_tokens: 30,
          cache_creation_input_tokens: 0,
          output_tokens: 3,
          output_tokens_details: { thinking_tokens: 2 },
          service_tier: 'standard',
        },
      });
    });

    it('streams the real event sequence', async () => {
      server.setModel('claude-fake', { response: 'one two', reasoning: 'hmm' });
      const response = await postJson(`${url}/v1/messages`, request({ stream: true }), HEADERS);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const events = parseSse(await response.text());
      for (const event of events) expect((JSON.parse(event.data) as { type: string }).type).toBe(event.event);
      expect(events.map((event) => event.event)).toEqual([
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      type EventData = { type: string; index?: number; delta?: unknown; message?: unknown; content_block?: unknown };
      const data = events.map((event) => JSON.parse(event.data) as EventData);
      expect(data[0].message).toMatchObject({ role: 'assistant', content: [], stop_reason: null, usage: { input_tokens: 2 } });
      expect(data[2]).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
      expect(data[3].delta).toEqual({ type: 'thinking_delta', thinking: 'hmm' });
      expect(data[4].delta).toEqual({ type: 'signature_delta', signature: expect.any(String) });
      expect(data[6]).toEqual({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } });
      expect(data.slice(7, 9).map((event) => event.delta)).toEqual([
        { type: 'text_delta', text: 'one ' },
        { type: 'text_delta', text: 'two' },
      ]);
      expect(data[10]).toEqual({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 3, output_tokens_details: { thinking_tokens: 1 } },
      });
    });

    it('honours max_tokens and stop_sequences', async () => {
      server.setModel('claude-fake', { response: 'alpha beta gamma delta' });
      const limited = (await (await postJson(`${url}/v1/messages`, request({ max_tokens: 2 }), HEADERS)).json()) as Record<string, unknown>;
      expect(limited).toMatchObject({ content: [{ type: 'text', text: 'alpha beta ' }], stop_reason: 'max_tokens' });
      const stopped = (await (await postJson(`${url}/v1/messages`, request({ stop_sequences: ['delta'] }), HEADERS)).json()) as Record<
        string,
        unknown
      >;
      expect(stopped).toMatchObject({
        content: [{ type: 'text', text: 'alpha beta gamma ' }],
        stop_reason: 'stop_sequence',
        stop_sequence: 'delta',
      });
    });

    it('requires x-api-key and anthropic-version, and records which key called it', async () => {
      const noKey = await postJson(`${url}/v1/messages`, request(), { 'anthropic-version': '2023-06-01' });
      expect(noKey.status).toBe(401);
      expect(await noKey.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
      const noVersion = await postJson(`${url}/v1/messages`, request(), { 'x-api-key': 'k' });
      expect(noVersion.status).toBe(400);
      await postJson(`${url}/v1/messages`, request(), HEADERS);
      expect(server.requests.map((record) => record.apiKey)).toEqual([null, 'k', 'sk-ant-test-secret']);
    });

    it('answers a scripted 429 in the Anthropic error shape with retry-after', async () => {
      server.setModel('claude-fake', { error: { status: 429, message: 'slow down' } });
      const response = await postJson(`${url}/v1/messages`, request(), HEADERS);
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(await response.json()).toEqual({
        type: 'error',
        error: { type: 'rate_limit_error', message: 'slow down' },
        request_id: expect.any(String),
      });
    });

    it('breaks a stream with an error event, then closes', async () => {
      server.setModel('claude-fake', { response: 'a b c d', failAfterFragments: 2 });
      const events = parseSse(await (await postJson(`${url}/v1/messages`, request({ stream: true }), HEADERS)).text());
      expect(events.map((event) => event.event)).toEqual([
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'error',
      ]);
      expect(JSON.parse(events[events.length - 1].data)).toEqual({
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
      });
    });
  });

  describe('through the AI SDK', () => {
    it('generateText reads thinking, text, usage with cache reads and reasoning tokens', async () => {
      server.setModel('claude-fake', {
        response: 'Paris.',
        reasoning: 'The capital of France.',
        usage: { promptTokens: 40, cachedTokens: 25 },
      });
      const result = await generateText({
        model: anthropic()('claude-fake'),
        prompt: 'Capital of France?',
        maxOutputTokens: 2_000,
        maxRetries: 0,
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      });
      expect(result.text).toBe('Paris.');
      expect(result.reasoningText).toBe('The capital of France.');
      expect(result.finishReason).toBe('stop');
      expect(result.usage).toMatchObject({
        inputTokens: 40,
        inputTokenDetails: { cacheReadTokens: 25 },
        outputTokens: 5,
        outputTokenDetails: { reasoningTokens: 4 },
      });
      expect(server.requests[0].body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    });

    it('streamText yields reasoning deltas, then text deltas, then a finish with usage', async () => {
      server.setModel('claude-fake', { response: 'Yes it is.', reasoning: 'Check facts.', usage: { cachedTokens: 1 } });
      const result = streamText({
        model: anthropic()('claude-fake'),
        prompt: 'Is it?',
        maxOutputTokens: 100,
        maxRetries: 0,
        stopSequences: ['never'],
      });
      const seen: string[] = [];
      let finish: unknown;
      for await (const part of result.fullStream) {
        // The signature arrives as an empty reasoning delta carrying it as provider metadata.
        if ((part.type === 'reasoning-delta' || part.type === 'text-delta') && part.text) seen.push(`${part.type}:${part.text}`);
        if (part.type === 'finish') finish = part;
      }
      expect(seen).toEqual(['reasoning-delta:Check ', 'reasoning-delta:facts.', 'text-delta:Yes ', 'text-delta:it ', 'text-delta:is.']);
      expect(finish).toMatchObject({
        finishReason: 'stop',
        totalUsage: { inputTokens: 2, inputTokenDetails: { cacheReadTokens: 1 }, outputTokens: 5 },
      });
    });

    it('maps max_tokens to a length finish', async () => {
      server.setModel('claude-fake', { response: 'a b c d e f' });
      const result = await generateText({ model: anthropic()('claude-fake'), prompt: 'x', maxOutputTokens: 3, maxRetries: 0 });
      expect(result).toMatchObject({ text: 'a b c ', finishReason: 'length' });
    });

    it('surfaces a scripted HTTP error as an APICallError with its status', async () => {
      server.setModel('claude-fake', { error: { status: 401 } });
      const failure = await generateText({ model: anthropic()('claude-fake'), prompt: 'x', maxOutputTokens: 100, maxRetries: 0 }).catch(
        (error: unknown) => error,
      );
      expect(APICallError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ statusCode: 401 });
    });

    it('surfaces a mid-stream error event as an error part after the first fragments', async () => {
      server.setModel('claude-fake', { response: 'a b c d', failAfterFragments: 2 });
      const result = streamText({
        model: anthropic()('claude-fake'),
        prompt: 'x',
        maxOutputTokens: 100,
        maxRetries: 0,
        onError: () => undefined,
      });
      const seen: string[] = [];
      let error: unknown;
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') seen.push(part.text);
        if (part.type === 'error') error = part.error;
      }
      expect(seen).toEqual(['a ', 'b ']);
      expect(error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
    });
  });
});
