import type { Request } from 'express';
import { checkResponsesBody, inputMessages, responseEvents, responseOf, responsesAsk } from './responses';

const request = { method: 'POST', path: '/openai/v1/responses', url: '/openai/v1/responses' } as Request;
const REQUEST_ID = 'req_0190f5a1b2c37d4e8f90a1b2c3d4e5f6';
const USAGE = {
  prompt_tokens: { total_tokens: 10, cached_tokens: 0 },
  completion_tokens: { total_tokens: 4, reasoning_tokens: 0 },
  total_tokens: 14,
};

/** `event:` and `data:` of each frame, checking they agree. */
function eventsOf(frames: string): Array<{ type: string; sequence_number: number } & Record<string, unknown>> {
  return frames
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse(dataLine.replace(/^data: /, '')) as { type: string; sequence_number: number };
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });
}

describe('Responses requests', () => {
  it('reads input items: instructions first, messages, a function call and its output', () => {
    expect(
      inputMessages(
        [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Weather?' },
              { type: 'input_image', image_url: 'https://example.com/a.png' },
            ],
          },
          { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { type: 'function_call_output', call_id: 'c1', output: 'rain' },
          { type: 'message', role: 'developer', content: 'Short answers.' },
        ],
        'You are a bot.',
      ),
    ).toEqual([
      { role: 'system', content: 'You are a bot.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather?' },
          { type: 'image', url: 'https://example.com/a.png' },
        ],
      },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }] },
      { role: 'tool', content: 'rain', tool_call_id: 'c1' },
      { role: 'system', content: 'Short answers.' },
    ]);
  });

  it('takes a string input, max_output_tokens and text.format', () => {
    const ask = responsesAsk(
      checkResponsesBody({
        model: 'prompt/a/b',
        input: 'Hi',
        max_output_tokens: 20,
        text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } },
      }),
    );
    expect(ask.messages).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(ask.params).toEqual({ max_tokens: 20 });
    expect(ask.responseFormat).toEqual({ type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: false });
  });

  it('refuses previous_response_id: nothing is stored', () => {
    expect(() => responsesAsk(checkResponsesBody({ model: 'prompt/a/b', input: 'Hi', previous_response_id: 'resp_1' }))).toThrow(
      expect.objectContaining({ status: 400, details: [expect.objectContaining({ field: 'previous_response_id' })] }),
    );
  });
});

describe('Responses answers', () => {
  it('answers a message item, or function calls, with usage', () => {
    const body = checkResponsesBody({ model: 'prompt/a/b', input: 'Hi' });
    const text = responseOf({ requestId: REQUEST_ID, text: 'Hello', toolCalls: [], usage: USAGE, stopReason: 'completed' }, body, 1);
    expect(text).toMatchObject({
      id: 'resp_0190f5a1b2c37d4e8f90a1b2c3d4e5f6',
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello' }] }],
      usage: { input_tokens: 10, output_tokens: 4, total_tokens: 14 },
      store: false,
    });
    const calls = responseOf(
      {
        requestId: REQUEST_ID,
        text: '',
        toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }],
        usage: USAGE,
        stopReason: 'tool_calls',
      },
      body,
      1,
    );
    expect(calls.output).toEqual([expect.objectContaining({ type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' })]);
    const cut = responseOf({ requestId: REQUEST_ID, text: 'Hel', toolCalls: [], usage: USAGE, stopReason: 'max_tokens' }, body, 1);
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('streams the documented event sequence, numbered from 0, ending with response.completed and no [DONE]', () => {
    const encoding = responseEvents(request, REQUEST_ID, checkResponsesBody({ model: 'prompt/a/b', input: 'Hi', stream: true }));
    const events = eventsOf(
      [
        encoding.event({ type: 'response', response: 'Hel' }),
        encoding.event({ type: 'response', response: 'lo' }),
        encoding.event({ type: 'usage', usage: USAGE, stop_reason: 'completed' }),
        encoding.done,
      ].join(''),
    );
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual([...events.keys()]);
    expect(events[6]).toMatchObject({ text: 'Hello' });
    expect(events.at(-1)).toMatchObject({ response: { status: 'completed', output: [{ type: 'message' }], usage: { total_tokens: 14 } } });
    expect(encoding.done).toBe('');
  });

  it('streams a function call as its own output item, and a failure as response.failed', () => {
    const encoding = responseEvents(request, REQUEST_ID, checkResponsesBody({ model: 'prompt/a/b', input: 'Hi', stream: true }));
    const events = eventsOf(
      encoding.event({ type: 'tool_call', tool_call: { id: 'c1', name: 'f', arguments: '{"a":1}' } }) +
        encoding.event({ type: 'error', error_code: 'provider_error', status_code: 502 }),
    );
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.failed',
    ]);
    expect(events.at(-1)).toMatchObject({ response: { status: 'failed', error: { code: 'provider_error' } } });
  });
});
