import { WaggleException } from '@waggle/errors';
import type { Request } from 'express';
import { chatAsk, chatChunks, chatCompletionOf, checkChatCompletionBody, finishReasonOf } from './chat-completions';

const request = { method: 'POST', path: '/openai/v1/chat/completions', url: '/openai/v1/chat/completions' } as Request;
const REQUEST_ID = 'req_0190f5a1b2c37d4e8f90a1b2c3d4e5f6';
const USAGE = {
  prompt_tokens: { total_tokens: 12, cached_tokens: 2 },
  completion_tokens: { total_tokens: 5, reasoning_tokens: 1 },
  total_tokens: 17,
};

function refusal(run: () => unknown): { param: unknown; status: number; code: string } {
  try {
    run();
  } catch (error) {
    const exception = error as WaggleException;
    return {
      param: (exception.details as Array<{ field: string }> | undefined)?.[0]?.field,
      status: exception.status,
      code: exception.code,
    };
  }
  throw new Error('expected a refusal');
}

const dataOf = (frames: string) =>
  frames
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => frame.replace(/^data: /, ''))
    .map((text) => (text === '[DONE]' ? text : (JSON.parse(text) as Record<string, unknown>)));

describe('Chat Completions requests', () => {
  it('reads a prompt request: target, conversation, parameters, labels and inputs from metadata', () => {
    const body = checkChatCompletionBody({
      model: 'prompt/support/default',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: '42' },
      ],
      max_completion_tokens: 50,
      max_tokens: 10,
      stop: 'END',
      seed: 7,
      metadata: { company: 'Acme' },
      user: 'u-1',
      unknown_field: { ignored: true },
    });
    const ask = chatAsk(body);
    expect(ask.target).toEqual({ kind: 'prompt', deployment: 'support', variant: 'default' });
    expect(ask.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image', url: 'https://example.com/a.png' },
        ],
      },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
      { role: 'tool', content: '42', tool_call_id: 'c1' },
    ]);
    expect(ask.params).toEqual({ max_tokens: 50, stop: ['END'], seed: 7 });
    expect(ask.inputs).toEqual({ company: 'Acme' });
    expect(ask).toMatchObject({ metadata: { company: 'Acme' }, user: 'u-1' });
  });

  it('takes inputs over metadata, tools with their schemas, and a json_schema response format', () => {
    const ask = chatAsk(
      checkChatCompletionBody({
        model: 'prompt/a/b',
        messages: [{ role: 'user', content: 'hi' }],
        inputs: { q: 1 },
        metadata: { q: 'no' },
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
        tool_choice: { type: 'function', function: { name: 'lookup' } },
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } },
      }),
    );
    expect(ask.inputs).toEqual({ q: 1 });
    expect(ask.tools).toEqual([{ name: 'lookup', parameters: { type: 'object' } }]);
    expect(ask.toolChoice).toEqual({ name: 'lookup' });
    expect(ask.responseFormat).toEqual({ type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true });
  });

  it.each([
    [{ model: 'prompt/a/b', messages: [{ role: 'bogus', content: 'x' }] }, 'messages[0].role'],
    [{ model: 'prompt/a/b', messages: [] }, 'messages'],
    [{ model: 'prompt/a/b' }, 'messages'],
    [{ model: 'prompt/a/b', messages: [{ role: 'user', content: 'x' }], temperature: 3 }, 'temperature'],
    [
      {
        model: 'prompt/a/b',
        messages: [{ role: 'user', content: 'x' }],
        metadata: Object.fromEntries([...Array(17).keys()].map((k) => [`k${k}`, 'v'])),
      },
      'metadata',
    ],
    [
      { model: 'prompt/a/b', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'bad name' } }] },
      'tools[0].function.name',
    ],
  ])('refuses an invalid body with 400 naming the parameter (%#)', (body, param) => {
    expect(refusal(() => checkChatCompletionBody(body))).toEqual({ param, status: 400, code: 'validation_error' });
  });

  it.each([
    [{ n: 2 }, 'n'],
    [{ logprobs: true }, 'logprobs'],
    [{ audio: { voice: 'alloy' } }, 'audio'],
    [{ modalities: ['text', 'audio'] }, 'modalities'],
  ])('refuses what it cannot give, naming it (%#)', (extra, param) => {
    const body = checkChatCompletionBody({ model: 'prompt/a/b', messages: [{ role: 'user', content: 'x' }], ...extra });
    expect(refusal(() => chatAsk(body))).toEqual({ param, status: 400, code: 'validation_error' });
  });

  it('accepts n: 1 and text modalities', () => {
    const body = checkChatCompletionBody({ model: 'prompt/a/b', messages: [{ role: 'user', content: 'x' }], n: 1, modalities: ['text'] });
    expect(chatAsk(body).target.kind).toBe('prompt');
  });

  it.each(['gpt-4o', 'prompt/a', 'prompt/a/b/c', 'agent/', 'agent/a/b'])('answers a model id it does not know, %s, with 404', (model) => {
    const body = checkChatCompletionBody({ model, messages: [{ role: 'user', content: 'x' }] });
    expect(refusal(() => chatAsk(body))).toMatchObject({ status: 404, code: 'resource_not_found' });
  });

  it('maps stop reasons to finish reasons', () => {
    expect(['completed', 'max_tokens', 'tool_calls', 'content_filter', 'other'].map(finishReasonOf)).toEqual([
      'stop',
      'length',
      'tool_calls',
      'content_filter',
      'stop',
    ]);
  });
});

describe('Chat Completions answers', () => {
  it('shapes a whole answer with tool calls, usage details and the requested model', () => {
    const answer = chatCompletionOf(
      {
        requestId: REQUEST_ID,
        text: '',
        toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":1}' }],
        usage: USAGE,
        stopReason: 'tool_calls',
      },
      'prompt/a/b',
      1_800_000_000,
    );
    expect(answer).toMatchObject({
      id: 'chatcmpl-0190f5a1b2c37d4e8f90a1b2c3d4e5f6',
      object: 'chat.completion',
      model: 'prompt/a/b',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 5,
        total_tokens: 17,
        prompt_tokens_details: { cached_tokens: 2 },
        completion_tokens_details: { reasoning_tokens: 1 },
      },
    });
  });

  it('streams chunks: role first, tool call indexes, finish, then the usage chunk with no choices', () => {
    const encoding = chatChunks(request, REQUEST_ID, 'prompt/a/b', true);
    const frames = [
      encoding.event({ type: 'reasoning', response: 'thinking' }),
      encoding.event({ type: 'response', response: 'Hel' }),
      encoding.event({ type: 'response', response: 'lo' }),
      encoding.event({ type: 'tool_call', tool_call: { id: 'c1', name: 'f', arguments: '{}' } }),
      encoding.event({ type: 'tool_call', tool_call: { id: 'c2', name: 'g', arguments: '{}' } }),
      encoding.event({ type: 'tool', tool: 'knowledge_search' }),
      encoding.event({ type: 'usage', usage: USAGE, stop_reason: 'tool_calls' }),
      encoding.done,
    ].join('');
    const chunks = dataOf(frames);
    expect(chunks.at(-1)).toBe('[DONE]');
    const objects = chunks.slice(0, -1) as Array<{
      id: string;
      choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>;
      usage: unknown;
    }>;
    expect(new Set(objects.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-0190f5a1b2c37d4e8f90a1b2c3d4e5f6']));
    expect(objects[0].choices[0].delta).toEqual({ role: 'assistant', content: 'Hel' });
    expect(objects[1].choices[0].delta).toEqual({ content: 'lo' });
    expect(objects[2].choices[0].delta.tool_calls).toEqual([
      { index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
    ]);
    expect((objects[3].choices[0].delta.tool_calls as Array<{ index: number }>)[0].index).toBe(1);
    expect(objects[4].choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    expect(objects.slice(0, 5).every((chunk) => chunk.usage === null)).toBe(true);
    expect(objects[5]).toMatchObject({ choices: [], usage: { total_tokens: 17 } });
  });

  it('sends no usage field without include_usage, and the role with the finish when nothing came before', () => {
    const encoding = chatChunks(request, REQUEST_ID, 'agent/x', false);
    const [finish] = dataOf(encoding.event({ type: 'usage', usage: USAGE, stop_reason: 'completed' })) as Array<Record<string, unknown>>;
    expect(finish).not.toHaveProperty('usage');
    expect(finish.choices).toEqual([{ index: 0, delta: { role: 'assistant' }, logprobs: null, finish_reason: 'stop' }]);
  });

  it("ends a failed run with OpenAI's error frame, a service's error event and a relay failure alike", () => {
    const encoding = chatChunks(request, REQUEST_ID, 'prompt/a/b', false);
    const failure = new WaggleException('provider_error', { status: 502 });
    const [fromEvent] = dataOf(
      encoding.event({ type: 'error', error_code: 'provider_error', status_code: 502, failure: failure.toWire() }),
    );
    const [fromRelay] = dataOf(encoding.failure(failure));
    expect(fromEvent).toEqual(fromRelay);
    expect(fromEvent).toEqual({ error: { message: expect.any(String), type: 'server_error', param: null, code: 'provider_error' } });
  });
});
