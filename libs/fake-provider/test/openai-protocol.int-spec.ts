import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { FakeProviderServer } from '../src';
import { APICallError, generateText, streamText, type TextStreamPart, type ToolSet } from 'ai';
import { parseSse, postJson } from './sse';

describe('fake provider: OpenAI chat completions', () => {
  const server = new FakeProviderServer();
  let url: string;

  beforeAll(async () => {
    url = await server.start();
  });
  afterAll(() => server.stop());
  afterEach(() => server.reset());

  const compatible = () => createOpenAICompatible({ name: 'fake', baseURL: `${url}/v1`, apiKey: 'sk-test-secret', includeUsage: true });

  describe('over plain HTTP', () => {
    it('answers a chat.completion with the echo, usage and finish_reason', async () => {
      const response = await postJson(`${url}/v1/chat/completions`, {
        model: 'gpt-fake',
        messages: [{ role: 'user', content: 'hello fake world' }],
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        id: expect.stringMatching(/^chatcmpl-/),
        object: 'chat.completion',
        created: expect.any(Number),
        model: 'gpt-fake',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Echo: hello fake world' }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: 3,
          completion_tokens: 4,
          total_tokens: 7,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      });
      expect(server.requests).toEqual([
        expect.objectContaining({
          protocol: 'openai',
          path: '/v1/chat/completions',
          model: 'gpt-fake',
          stream: false,
          aborted: false,
          status: 200,
        }),
      ]);
    });

    it('streams chunks: role, reasoning_content, content, finish_reason, usage, [DONE]', async () => {
      server.setModel('gpt-fake', { response: 'one two three', reasoning: 'thinking hard', chunkSize: 2, usage: { cachedTokens: 1 } });
      const response = await postJson(`${url}/v1/chat/completions`, {
        model: 'gpt-fake',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'go now' }],
      });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const events = parseSse(await response.text());
      expect(events.at(-1)).toEqual({ data: '[DONE]' });
      const chunks = events.slice(0, -1).map(
        (event) =>
          JSON.parse(event.data) as {
            object: string;
            choices: Array<{ delta: Record<string, string>; finish_reason: string | null }>;
            usage: unknown;
          },
      );
      expect(new Set(chunks.map((chunk) => chunk.object))).toEqual(new Set(['chat.completion.chunk']));
      expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([
        { role: 'assistant', content: '', refusal: null },
        { reasoning_content: 'thinking hard' },
        { content: 'one two ' },
        { content: 'three' },
        {},
        undefined,
      ]);
      expect(chunks[4].choices[0].finish_reason).toBe('stop');
      expect(chunks[5].usage).toMatchObject({
        prompt_tokens: 2,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 1 },
        completion_tokens_details: { reasoning_tokens: 2 },
      });
      expect(chunks.slice(0, 5).every((chunk) => chunk.usage === null)).toBe(true);
    });

    it('sends no usage chunk unless asked', async () => {
      const response = await postJson(`${url}/v1/chat/completions`, {
        model: 'gpt-fake',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      const events = parseSse(await response.text()).slice(0, -1);
      expect(events.every((event) => !('usage' in (JSON.parse(event.data) as object)))).toBe(true);
    });

    it('honours max_tokens with finish_reason length, and stop', async () => {
      server.setModel('gpt-fake', { response: 'alpha beta gamma delta' });
      const limited = (await (
        await postJson(`${url}/v1/chat/completions`, { model: 'gpt-fake', max_tokens: 2, messages: [{ role: 'user', content: 'x' }] })
      ).json()) as {
        choices: Array<{ message: { content: string }; finish_reason: string }>;
      };
      expect(limited.choices[0]).toMatchObject({ message: { content: 'alpha beta ' }, finish_reason: 'length' });
      const stopped = (await (
        await postJson(`${url}/v1/chat/completions`, { model: 'gpt-fake', stop: ['gamma'], messages: [{ role: 'user', content: 'x' }] })
      ).json()) as {
        choices: Array<{ message: { content: string }; finish_reason: string }>;
      };
      expect(stopped.choices[0]).toMatchObject({ message: { content: 'alpha beta ' }, finish_reason: 'stop' });
    });

    it('answers a scripted 429 in the OpenAI error shape with retry-after', async () => {
      server.setModel('gpt-fake', { error: { status: 429, retryAfterSeconds: 3 } });
      const response = await postJson(`${url}/v1/chat/completions`, { model: 'gpt-fake', messages: [{ role: 'user', content: 'x' }] });
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('3');
      expect(await response.json()).toEqual({
        error: { message: expect.any(String), type: 'requests', param: null, code: 'rate_limit_exceeded' },
      });
    });

    it('answers 400 to a body that is not a chat request', async () => {
      const response = await postJson(`${url}/v1/chat/completions`, { prompt: 'x' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    });

    it('breaks a stream mid-way by dropping the connection', async () => {
      server.setModel('gpt-fake', { response: 'a b c d e', failAfterFragments: 2 });
      const response = await postJson(`${url}/v1/chat/completions`, {
        model: 'gpt-fake',
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(response.status).toBe(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let received = '';
      const decoder = new TextDecoder();
      const failure = await (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return undefined;
          received += decoder.decode(value, { stream: true });
        }
      })().catch((error: unknown) => error);
      // undici's TypeError comes from another realm than jest's, so compare by name.
      expect(failure).toMatchObject({ name: 'TypeError', message: 'terminated' });
      expect(received).toContain('"content":"b "');
      expect(received).not.toContain('"content":"c "');
      expect(received).not.toContain('[DONE]');
      const [record] = server.requests;
      expect(record).toMatchObject({ aborted: false, finishedAt: expect.any(Number) });
    });
  });

  describe('through the AI SDK', () => {
    it('openai-compatible generateText reads text, reasoning, usage and finish reason', async () => {
      server.setModel('fake-reasoner', {
        response: 'The answer is 42.',
        reasoning: 'Six times seven.',
        usage: { promptTokens: 120, cachedTokens: 100 },
      });
      const result = await generateText({
        model: compatible().chatModel('fake-reasoner'),
        prompt: 'What is six times seven?',
        maxRetries: 0,
      });
      expect(result.text).toBe('The answer is 42.');
      expect(result.reasoningText).toBe('Six times seven.');
      expect(result.finishReason).toBe('stop');
      expect(result.usage).toMatchObject({
        inputTokens: 120,
        inputTokenDetails: { cacheReadTokens: 100 },
        outputTokens: 7,
        outputTokenDetails: { reasoningTokens: 3 },
        totalTokens: 127,
      });
    });

    it('openai-compatible streamText yields reasoning, then text, then finish with usage', async () => {
      server.setModel('fake-reasoner', { response: 'Forty two.', reasoning: 'Let me multiply.', usage: { cachedTokens: 2 } });
      const result = streamText({ model: compatible().chatModel('fake-reasoner'), prompt: 'six times seven', maxRetries: 0 });
      const parts: Array<TextStreamPart<ToolSet>> = [];
      for await (const part of result.fullStream) parts.push(part);
      const deltas = parts
        .filter((part) => part.type === 'reasoning-delta' || part.type === 'text-delta')
        .map((part) => `${part.type}:${(part as { text: string }).text}`);
      expect(deltas).toEqual([
        'reasoning-delta:Let ',
        'reasoning-delta:me ',
        'reasoning-delta:multiply.',
        'text-delta:Forty ',
        'text-delta:two.',
      ]);
      const finish = parts.find((part) => part.type === 'finish');
      expect(finish).toMatchObject({
        finishReason: 'stop',
        totalUsage: {
          inputTokens: 3,
          inputTokenDetails: { cacheReadTokens: 2 },
          outputTokens: 5,
          outputTokenDetails: { reasoningTokens: 3 },
        },
      });
      const [record] = server.requests;
      expect(record.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    });

    it('@ai-sdk/openai chat model reads text, usage and a length finish', async () => {
      server.setModel('gpt-4o-mini', { response: 'one two three four five', usage: { cachedTokens: 1 } });
      const openai = createOpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-test-secret' });
      const result = await generateText({ model: openai.chat('gpt-4o-mini'), prompt: 'count', maxOutputTokens: 3, maxRetries: 0 });
      expect(result.text).toBe('one two three ');
      expect(result.finishReason).toBe('length');
      expect(result.usage).toMatchObject({ inputTokens: 1, inputTokenDetails: { cacheReadTokens: 1 }, outputTokens: 3 });
      expect(server.requests[0].body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 3 });
    });

    it('surfaces a scripted HTTP error as an APICallError with its status', async () => {
      server.setModel('fake-broken', { error: { status: 500, message: 'boom' } });
      const failure = await generateText({ model: compatible().chatModel('fake-broken'), prompt: 'x', maxRetries: 0 }).catch(
        (error: unknown) => error,
      );
      expect(APICallError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ statusCode: 500, message: 'boom' });
    });

    it('surfaces a mid-stream break as a failing stream after the first fragments', async () => {
      server.setModel('fake-broken', { response: 'a b c d e', failAfterFragments: 2 });
      const result = streamText({ model: compatible().chatModel('fake-broken'), prompt: 'x', maxRetries: 0, onError: () => undefined });
      const texts: string[] = [];
      // A broken body makes the SDK's stream itself fail (not an `error` part).
      const failure = await (async () => {
        for await (const part of result.fullStream) if (part.type === 'text-delta') texts.push(part.text);
      })().catch((error: unknown) => error);
      expect(texts).toEqual(['a ', 'b ']);
      expect(APICallError.isInstance(failure)).toBe(true);
      expect((failure as APICallError).cause).toMatchObject({ message: 'terminated' });
    });
  });
});
