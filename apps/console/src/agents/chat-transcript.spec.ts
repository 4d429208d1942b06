import {
  answerText,
  applyAgentEvent,
  attachmentUrls,
  newAssistantTurn,
  newThreadId,
  prettyJson,
  type AssistantTurn,
} from './chat-transcript';

const play = (events: Array<{ event: string; data: unknown }>): AssistantTurn => events.reduce(applyAgentEvent, newAssistantTurn());
const fragment = (type: 'response' | 'reasoning', response: string, done = false) => ({
  event: 'message',
  data: { request_id: 'req_1', type, model: 'fake-chat', response, done },
});

describe('applyAgentEvent', () => {
  it('joins text fragments as they arrive, keeping the request id and model', () => {
    const partial = play([fragment('response', 'Hello '), fragment('response', 'there')]);
    expect(partial).toEqual(
      expect.objectContaining({
        requestId: 'req_1',
        model: 'fake-chat',
        finished: false,
        parts: [{ kind: 'response', text: 'Hello there' }],
      }),
    );
  });

  it('shows the tool loop in order: reasoning, a tool call with its input and observation, then the answer', () => {
    const turn = play([
      fragment('reasoning', 'Look it up.'),
      fragment('reasoning', '', true),
      {
        event: 'message',
        data: {
          request_id: 'req_1',
          type: 'tool',
          tool_id: 'call_1',
          tool: 'knowledge_search',
          tool_type: 'knowledge_base',
          tool_input: { query: 'refunds' },
          observation: '{"results":[]}',
        },
      },
      fragment('response', 'Within '),
      fragment('response', '14 days.'),
      fragment('response', '', true),
      {
        event: 'message',
        data: { request_id: 'req_1', type: 'usage', usage: { total_tokens: 42, duration: 0.5 }, stop_reason: 'completed' },
      },
      { event: 'message', data: '[DONE]' },
    ]);
    expect(turn.parts).toEqual([
      { kind: 'reasoning', text: 'Look it up.' },
      {
        kind: 'tool',
        call: {
          id: 'call_1',
          tool: 'knowledge_search',
          toolType: 'knowledge_base',
          input: { query: 'refunds' },
          observation: '{"results":[]}',
        },
      },
      { kind: 'response', text: 'Within 14 days.' },
    ]);
    expect(turn).toEqual(expect.objectContaining({ finished: true, stopReason: 'completed', totalTokens: 42, error: null }));
    expect(answerText(turn)).toBe('Within 14 days.');
  });

  it('ends the turn on an error event with its message and code', () => {
    const turn = play([
      fragment('response', 'Par'),
      {
        event: 'message',
        data: { request_id: 'req_1', type: 'error', error: 'boom', message: 'The provider failed', error_code: 'provider_error' },
      },
    ]);
    expect(turn.finished).toBe(true);
    expect(turn.error).toEqual({ message: 'The provider failed', code: 'provider_error' });
    expect(answerText(turn)).toBe('Par');
  });

  it('ignores what it does not know', () => {
    const before = newAssistantTurn();
    expect(applyAgentEvent(before, { event: 'message', data: 42 })).toBe(before);
    expect(applyAgentEvent(before, { event: 'ping', data: { type: 'heartbeat' } }).parts).toEqual([]);
  });
});

describe('attachmentUrls', () => {
  it('splits on spaces, commas and lines and drops empties', () => {
    expect(attachmentUrls(' https://a.example/x.pdf,https://b.example/y.png\n\nhttps://c.example/z ')).toEqual([
      'https://a.example/x.pdf',
      'https://b.example/y.png',
      'https://c.example/z',
    ]);
    expect(attachmentUrls('   ')).toEqual([]);
  });
});

describe('newThreadId and prettyJson', () => {
  it('makes a console thread id from a random uuid', () => {
    expect(newThreadId(() => '0123abcd-ffff')).toBe('console-0123abcd');
  });

  it('indents JSON text and leaves other text as it is', () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson('not json')).toBe('not json');
    expect(prettyJson({ b: [1] })).toBe('{\n  "b": [\n    1\n  ]\n}');
  });
});
