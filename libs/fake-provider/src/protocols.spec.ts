import { anthropicConversation, anthropicError, anthropicEvent, anthropicMessage } from './anthropic-protocol';
import { planAnswer, resolveBehaviour } from './behaviour';
import { openAIChunk, openAICompletion, openAIConversation, openAIError } from './openai-protocol';

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
    expect(conversation).toEqual({ lastUserText: 'look at', promptWords: 8, maxTokens: 20, stop: ['END'] });
    expect(openAIConversation({ model: 'm' })).toBeUndefined();
  });

  it('answers the chat.completion shape with reasoning_content and detailed usage', () => {
    const answer = planAnswer(resolveBehaviour({ response: 'Hi there', reasoning: 'think', usage: { cachedTokens: 2 } }), {
      lastUserText: '',
      promptWords: 5,
      stop: [],
    });
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
    const usage = { promptTokens: 1, cachedTokens: 0, completionTokens: 2, reasoningTokens: 0 };
    expect(openAIChunk(identity, undefined, true, usage)).toMatchObject({ choices: [], usage: { total_tokens: 3 } });
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
    expect(anthropicConversation(body)).toEqual({ lastUserText: 'hi you', promptWords: 4, maxTokens: 10, stop: ['X'] });
    expect(anthropicConversation({ ...body, max_tokens: undefined })).toBeUndefined();
  });

  it('answers thinking then text blocks, with cache reads apart from input_tokens', () => {
    const behaviour = resolveBehaviour({ response: 'A B C', reasoning: 'hmm', usage: { promptTokens: 10, cachedTokens: 4 } });
    const message = anthropicMessage('msg_1', 'c', planAnswer(behaviour, { lastUserText: '', promptWords: 0, maxTokens: 100, stop: [] }));
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
        input_tokens: 6,
        cache_read_input_tokens: 4,
        cache_creation_input_tokens: 0,
        output_tokens: 4,
        output_tokens_details: { thinking_tokens: 1 },
      },
    });
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
