import { anthropicConversation, anthropicError, anthropicEvent, anthropicMessage } from './anthropic-protocol';
import { planAnswer, resolveBehaviour, type FakeConversation } from './behaviour';
import { openAIChunk, openAICompletion, openAIConversation, openAIError, openAIToolCallDeltas } from './openai-protocol';

const conversation = (overrides: Partial<FakeConversation> = {}): FakeConversation => ({
  lastUserText: '',
  toolRounds: 0,
  toolsAllowed: true,
  images: [],
  promptWords: 5,
  stop: [],
  ...overrides,
});

/** Round 0 calls the weather tool twice; after one round of results, the plain answer. */
const toolBehaviour = resolveBehaviour({
  turns: [
    {
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } },
        { name: 'get_time', arguments: { zone: 'CET' } },
      ],
    },
  ],
  response: 'Sunny.',
});

describe('OpenAI chat completions', () => {
  it('reads the last user text (string or parts), the token limit and stop', () => {
    const conversation = openAIConversation({
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'an answer' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look at' },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
          ],
        },
      ],
      max_completion_tokens: 20,
      max_tokens: 99,
      stop: 'END',
    });
    expect(conversation).toEqual({
      lastUserText: 'look at',
      toolRounds: 0,
      toolsAllowed: false,
      images: [{ source: 'url', url: 'https://x/y.png' }],
      promptWords: 8,
      maxTokens: 20,
      stop: ['END'],
    });
    expect(openAIConversation({ model: 'm' })).toBeUndefined();
  });

  it('answers the chat.completion shape with reasoning_content and detailed usage', () => {
    const answer = planAnswer(resolveBehaviour({ response: 'Hi there', reasoning: 'think', usage: { cachedTokens: 2 } }), conversation());
    expect(openAICompletion({ id: 'chatcmpl-1', model: 'm', created: 1 }, answer)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      system_fingerprint: 'fp_fake',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi there', reasoning_content: 'think', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 5,
        completion_tokens: 3,
        total_tokens: 8,
        prompt_tokens_details: { cached_tokens: 2, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 1, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
    });
  });

  it('marks usage null on content chunks and carries it on a choice-less chunk', () => {
    const identity = { id: 'c', model: 'm', created: 1 };
    expect(openAIChunk(identity, { delta: { content: 'x' } }, true)).toMatchObject({
      choices: [{ delta: { content: 'x' }, finish_reason: null }],
      usage: null,
    });
    expect(openAIChunk(identity, { delta: { content: 'x' } }, false)).not.toHaveProperty('usage');
    const usage = { promptTokens: 1, cachedTokens: 0, cacheWriteTokens: 0, completionTokens: 2, reasoningTokens: 0 };
    expect(openAIChunk(identity, undefined, true, usage)).toMatchObject({ choices: [], usage: { total_tokens: 3 } });
    expect(openAIChunk(identity, undefined, true, { ...usage, cacheWriteTokens: 1 })).toMatchObject({
      usage: { prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 1 } },
    });
  });

  it('counts rounds of tool results and reads inline images', () => {
    const read = openAIConversation({
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'a' }, { id: 'b' }] },
        { role: 'tool', tool_call_id: 'a', content: '1' },
        { role: 'tool', tool_call_id: 'b', content: '2' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c' }] },
        { role: 'tool', tool_call_id: 'c', content: '3' },
      ],
    });
    expect(read).toMatchObject({
      toolRounds: 2,
      toolsAllowed: false,
      images: [{ source: 'base64', mediaType: 'image/png', data: 'iVBORw0K' }],
    });
  });

  it('answers a scripted turn of tool calls with tool_calls and finish_reason tool_calls', () => {
    const completion = openAICompletion({ id: 'c', model: 'm', created: 1 }, planAnswer(toolBehaviour, conversation()));
    expect(completion).toMatchObject({
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_fake_0_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } },
              { id: 'call_fake_0_1', type: 'function', function: { name: 'get_time', arguments: '{"zone":"CET"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
    const next = openAICompletion({ id: 'c', model: 'm', created: 1 }, planAnswer(toolBehaviour, conversation({ toolRounds: 1 })));
    expect(next).toMatchObject({ choices: [{ message: { content: 'Sunny.' }, finish_reason: 'stop' }] });
    expect((next.choices as Array<{ message: object }>)[0].message).not.toHaveProperty('tool_calls');
  });

  it('streams a tool call as a named first delta, then argument pieces that join to the JSON', () => {
    const [weather] = planAnswer(toolBehaviour, conversation()).toolCalls;
    const deltas = openAIToolCallDeltas(weather, 0);
    expect(deltas[0]).toEqual({
      tool_calls: [{ index: 0, id: 'call_fake_0_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }],
    });
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.slice(1).every((delta) => Object.keys((delta.tool_calls as object[])[0]).join() === 'index,function')).toBe(true);
    const joined = deltas.map((delta) => (delta.tool_calls as Array<{ function: { arguments: string } }>)[0].function.arguments).join('');
    expect(JSON.parse(joined)).toEqual({ city: 'Paris', unit: 'celsius' });
  });

  it('reads a response_format json_schema with its schema and strict flag, and json_object', () => {
    const schema = { type: 'object', properties: {}, additionalProperties: false };
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
    expect(
      openAIConversation({ ...base, response_format: { type: 'json_schema', json_schema: { name: 'response', schema, strict: true } } })
        ?.structured,
    ).toEqual({ mode: 'json_schema', schema, strict: true });
    expect(openAIConversation({ ...base, response_format: { type: 'json_object' } })?.structured).toEqual({ mode: 'json_object' });
    expect(openAIConversation({ ...base, response_format: { type: 'text' } })?.structured).toBeUndefined();
    expect(openAIConversation(base)?.structured).toBeUndefined();
  });

  it('answers errors in the OpenAI error shape', () => {
    expect(openAIError(429)).toEqual({
      error: { message: expect.any(String), type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
    expect(openAIError(502, 'bad gateway')).toEqual({ error: { message: 'bad gateway', type: 'server_error', param: null, code: null } });
  });
});

describe('Anthropic messages', () => {
  it('reads system and message text and requires max_tokens', () => {
    const body = {
      model: 'c',
      system: [{ type: 'text', text: 'be kind' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi you' }] }],
      max_tokens: 10,
      stop_sequences: ['X'],
    };
    expect(anthropicConversation(body)).toEqual({
      lastUserText: 'hi you',
      toolRounds: 0,
      toolsAllowed: false,
      images: [],
      promptWords: 4,
      maxTokens: 10,
      stop: ['X'],
    });
    expect(anthropicConversation({ ...body, max_tokens: undefined })).toBeUndefined();
  });

  it('answers thinking then text blocks, with cache reads and writes apart from input_tokens', () => {
    const behaviour = resolveBehaviour({
      response: 'A B C',
      reasoning: 'hmm',
      usage: { promptTokens: 10, cachedTokens: 4, cacheWriteTokens: 2 },
    });
    const message = anthropicMessage('msg_1', 'c', planAnswer(behaviour, conversation({ promptWords: 0, maxTokens: 100 })));
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: expect.any(String) },
        { type: 'text', text: 'A B C' },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 4,
        cache_read_input_tokens: 4,
        cache_creation_input_tokens: 2,
        output_tokens: 4,
        output_tokens_details: { thinking_tokens: 1 },
      },
    });
  });

  it('counts user messages carrying tool results and reads url and base64 images', () => {
    const read = anthropicConversation({
      model: 'c',
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'url', url: 'https://x/cat.png' } },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 't', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] },
      ],
    });
    expect(read).toMatchObject({
      toolRounds: 1,
      images: [
        { source: 'url', url: 'https://x/cat.png' },
        { source: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' },
      ],
    });
  });

  it('answers a turn of tool calls as tool_use blocks without a text block, stop_reason tool_use', () => {
    const message = anthropicMessage('msg_1', 'c', planAnswer(toolBehaviour, conversation({ maxTokens: 100 })));
    expect(message).toMatchObject({
      content: [
        { type: 'tool_use', id: 'call_fake_0_0', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
        { type: 'tool_use', id: 'call_fake_0_1', name: 'get_time', input: { zone: 'CET' } },
      ],
      stop_reason: 'tool_use',
    });
    expect(message.content).toHaveLength(2);
  });

  it('reads the forced json tool, native output_config/output_format, and nothing else, as structured', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const jsonTool = { name: 'json', description: 'Respond with a JSON object.', input_schema: schema };
    const other = { name: 'lookup', input_schema: { type: 'object' } };
    const read = (extra: Record<string, unknown>) =>
      anthropicConversation({ model: 'c', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], ...extra })?.structured;
    expect(read({ tools: [jsonTool], tool_choice: { type: 'any', disable_parallel_tool_use: true } })).toEqual({
      mode: 'json_tool',
      schema,
    });
    expect(read({ tools: [other, { ...jsonTool, strict: true }], tool_choice: { type: 'tool', name: 'json' } })).toEqual({
      mode: 'json_tool',
      schema,
      strict: true,
    });
    // Offered but not forced: the model may answer in text, so the request is not structured.
    expect(read({ tools: [jsonTool], tool_choice: { type: 'auto' } })).toBeUndefined();
    expect(read({ tools: [other, jsonTool], tool_choice: { type: 'tool', name: 'lookup' } })).toBeUndefined();
    expect(read({ tools: [other], tool_choice: { type: 'any' } })).toBeUndefined();
    expect(read({ output_config: { effort: 'low', format: { type: 'json_schema', schema } } })).toEqual({ mode: 'output_format', schema });
    expect(read({ output_format: { type: 'json_schema', schema } })).toEqual({ mode: 'output_format', schema });
    expect(read({ output_config: { effort: 'low' } })).toBeUndefined();
  });

  it('answers a JSON answer of the forced json tool as one tool_use block named json', () => {
    const behaviour = resolveBehaviour({ json: { answer: 'valid', value: { a: 'b' } } });
    const message = anthropicMessage(
      'msg_1',
      'c',
      planAnswer(behaviour, conversation({ maxTokens: 100, structured: { mode: 'json_tool', schema: { type: 'object' } } })),
    );
    expect(message).toMatchObject({ content: [{ type: 'tool_use', name: 'json', input: { a: 'b' } }], stop_reason: 'tool_use' });
    expect(message.content).toHaveLength(1);
  });

  it('names events in the SSE event line and the data type', () => {
    expect(anthropicEvent('message_stop', {})).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  });

  it('answers errors in the Anthropic error shape', () => {
    expect(anthropicError(429, undefined, 'req_1')).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: expect.any(String) },
      request_id: 'req_1',
    });
    expect(anthropicError(529, 'busy', 'req_2').error).toEqual({ type: 'overloaded_error', message: 'busy' });
  });
});
