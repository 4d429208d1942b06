import { fakeEmbedding } from '../src';
import { useFakeProvider } from './fake-server';
import { parseSse, postJson } from './sse';

type Json = Record<string, unknown>;

/** Scripted calls: round 0 asks for the weather in Paris, then the plain answer. */
const TOOL_SCRIPT = {
  turns: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }] }],
  response: 'Sunny.',
};

describe('fake provider: scripted tool calls and embeddings over HTTP', () => {
  const { server, url: baseUrl } = useFakeProvider();
  let url: string;
  beforeAll(() => {
    url = baseUrl();
  });

  const anthropicHeaders = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
  const openAITools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
  const anthropicTools = [{ name: 'get_weather', input_schema: { type: 'object' } }];

  describe('OpenAI chat completions', () => {
    const firstTurn = { model: 'tool-model', tools: openAITools, messages: [{ role: 'user', content: 'weather?' }] };

    it('answers the scripted tool call, then the answer once the request carries its result', async () => {
      server.setModel('tool-model', TOOL_SCRIPT);
      const first = (await (await postJson(`${url}/v1/chat/completions`, firstTurn)).json()) as Json;
      expect(first.choices).toEqual([
        expect.objectContaining({
          message: expect.objectContaining({
            content: null,
            tool_calls: [
              { id: 'call_fake_0_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } },
            ],
          }),
          finish_reason: 'tool_calls',
        }),
      ]);
      const second = (await (
        await postJson(`${url}/v1/chat/completions`, {
          ...firstTurn,
          messages: [
            ...firstTurn.messages,
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_fake_0_0', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: 'call_fake_0_0', content: '{"sky":"clear"}' },
          ],
        })
      ).json()) as Json;
      expect(second.choices).toEqual([
        expect.objectContaining({ message: expect.objectContaining({ content: 'Sunny.' }), finish_reason: 'stop' }),
      ]);
      expect(server.requests.map((record) => record.toolRounds)).toEqual([0, 1]);
    });

    it('streams the call as indexed delta.tool_calls whose argument pieces join to the JSON', async () => {
      server.setModel('tool-model', TOOL_SCRIPT);
      const response = await postJson(`${url}/v1/chat/completions`, { ...firstTurn, stream: true });
      const chunks = parseSse(await response.text())
        .filter((event) => event.data !== '[DONE]')
        .map((event) => JSON.parse(event.data) as { choices: Array<{ delta: Json; finish_reason: string | null }> });
      const calls = chunks.flatMap((chunk) => (chunk.choices[0]?.delta.tool_calls as Array<Json> | undefined) ?? []);
      expect(calls[0]).toEqual({
        index: 0,
        id: 'call_fake_0_0',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":' },
      });
      expect(calls.length).toBeGreaterThan(2);
      expect(JSON.parse(calls.map((call) => (call.function as { arguments: string }).arguments).join(''))).toEqual({
        city: 'Paris',
        unit: 'celsius',
      });
      expect(chunks.at(-1)?.choices[0].finish_reason).toBe('tool_calls');
    });

    it('answers plainly when tool_choice is none', async () => {
      server.setModel('tool-model', TOOL_SCRIPT);
      const body = (await (await postJson(`${url}/v1/chat/completions`, { ...firstTurn, tool_choice: 'none' })).json()) as Json;
      expect(body.choices).toEqual([
        expect.objectContaining({ message: expect.objectContaining({ content: 'Sunny.' }), finish_reason: 'stop' }),
      ]);
    });
  });

  describe('Anthropic messages', () => {
    const firstTurn = { model: 'tool-model', max_tokens: 100, tools: anthropicTools, messages: [{ role: 'user', content: 'weather?' }] };

    it('answers a tool_use block with stop_reason tool_use, then the answer after a tool_result', async () => {
      server.setModel('tool-model', TOOL_SCRIPT);
      const first = (await (await postJson(`${url}/v1/messages`, firstTurn, anthropicHeaders)).json()) as Json;
      expect(first).toMatchObject({
        content: [{ type: 'tool_use', id: 'call_fake_0_0', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } }],
        stop_reason: 'tool_use',
      });
      const second = (await (
        await postJson(
          `${url}/v1/messages`,
          {
            ...firstTurn,
            messages: [
              ...firstTurn.messages,
              { role: 'assistant', content: first.content },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_fake_0_0', content: 'clear' }] },
            ],
          },
          anthropicHeaders,
        )
      ).json()) as Json;
      expect(second).toMatchObject({ content: [{ type: 'text', text: 'Sunny.' }], stop_reason: 'end_turn' });
    });

    it('streams a tool_use block start, input_json_delta pieces and the tool_use stop reason', async () => {
      server.setModel('tool-model', TOOL_SCRIPT);
      const response = await postJson(`${url}/v1/messages`, { ...firstTurn, stream: true }, anthropicHeaders);
      const events = parseSse(await response.text()).map((event) => JSON.parse(event.data) as Json);
      expect(events.find((event) => event.type === 'content_block_start')).toEqual({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'call_fake_0_0', name: 'get_weather', input: {} },
      });
      const pieces = events.flatMap((event) => {
        const delta = event.delta as Json | undefined;
        return event.type === 'content_block_delta' && delta?.type === 'input_json_delta' ? [delta.partial_json as string] : [];
      });
      expect(pieces.length).toBeGreaterThan(2);
      expect(JSON.parse(pieces.join(''))).toEqual({ city: 'Paris', unit: 'celsius' });
      expect(events.find((event) => event.type === 'message_delta')).toMatchObject({ delta: { stop_reason: 'tool_use' } });
    });
  });

  it('refuses a malformed tool script on the control API, naming the field', async () => {
    const response = await fetch(`${url}/_fake/models/tool-model`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ turns: [{ toolCalls: [{ name: 'get_weather', arguments: [] }] }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: 'turns[0].toolCalls[0].arguments must be a JSON object', type: 'invalid_behaviour' },
    });
  });

  describe('POST /v1/embeddings', () => {
    it('answers one deterministic vector per input with the asked dimensions and word-count usage', async () => {
      const response = await postJson(`${url}/v1/embeddings`, {
        model: 'embedder',
        input: ['red apple', 'green apple pie'],
        dimensions: 16,
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: Array<{ index: number; embedding: number[] }>; usage: Json };
      expect(body.data.map(({ index, embedding }) => [index, embedding])).toEqual([
        [0, fakeEmbedding('red apple', 16)],
        [1, fakeEmbedding('green apple pie', 16)],
      ]);
      expect(body.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
      expect(server.requests).toEqual([expect.objectContaining({ path: '/v1/embeddings', model: 'embedder', stream: false, status: 200 })]);
    });

    it('takes a single string with the scripted default dimensions', async () => {
      server.setModel('embedder', { embeddingDimensions: 8 });
      const body = (await (await postJson(`${url}/v1/embeddings`, { model: 'embedder', input: 'plain' })).json()) as {
        data: Array<{ embedding: number[] }>;
      };
      expect(body.data.map((entry) => entry.embedding)).toEqual([fakeEmbedding('plain', 8)]);
    });

    it('answers a scripted error in the OpenAI shape, and 400 for a bad request', async () => {
      server.setModel('embedder', { error: { status: 429 } });
      const limited = await postJson(`${url}/v1/embeddings`, { model: 'embedder', input: 'x' });
      expect(limited.status).toBe(429);
      expect(await limited.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
      const bad = await postJson(`${url}/v1/embeddings`, { model: 'embedder', input: 'x', dimensions: 0 });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: { message: 'dimensions must be an integer from 1 to 4096' } });
    });
  });
});
