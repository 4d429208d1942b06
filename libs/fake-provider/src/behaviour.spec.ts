import { parseBehaviour, planAnswer, resolveBehaviour, splitWords, type FakeConversation } from './behaviour';

const conversation = (overrides: Partial<FakeConversation> = {}): FakeConversation => ({
  lastUserText: 'hello there',
  toolRounds: 0,
  toolsAllowed: true,
  images: [],
  promptWords: 7,
  stop: [],
  ...overrides,
});

describe('splitWords', () => {
  it('keeps the spacing so the fragments join back to the text', () => {
    const text = '  The quick\nbrown  fox ';
    expect(splitWords(text)).toEqual(['  The ', 'quick\n', 'brown  ', 'fox ']);
    expect(splitWords(text).join('')).toBe(text);
    expect(splitWords('')).toEqual([]);
    expect(splitWords('   ')).toEqual(['   ']);
  });
});

describe('resolveBehaviour', () => {
  it('layers per-model fields over the defaults, usage field by field', () => {
    const behaviour = resolveBehaviour({ latencyMs: 50, usage: { promptTokens: 9 } }, { response: 'hi', usage: { cachedTokens: 4 } });
    expect(behaviour).toEqual({
      latencyMs: 50,
      tokenDelayMs: 0,
      chunkSize: 1,
      embeddingDimensions: 256,
      response: 'hi',
      usage: { promptTokens: 9, cachedTokens: 4 },
    });
  });
});

describe('planAnswer', () => {
  it('echoes the last user message by default and counts words as tokens', () => {
    const answer = planAnswer(resolveBehaviour(), conversation());
    expect(answer.responseFragments).toEqual(['Echo: ', 'hello ', 'there']);
    expect(answer.reasoningFragments).toEqual([]);
    expect(answer.finish).toBe('stop');
    expect(answer.usage).toEqual({ promptTokens: 7, cachedTokens: 0, completionTokens: 3, reasoningTokens: 0 });
  });

  it('sends reasoning first, groups words by chunkSize and counts reasoning in the completion', () => {
    const answer = planAnswer(resolveBehaviour({ response: 'one two three', reasoning: 'let me think', chunkSize: 2 }), conversation());
    expect(answer.reasoningFragments).toEqual(['let me ', 'think']);
    expect(answer.responseFragments).toEqual(['one two ', 'three']);
    expect(answer.usage).toMatchObject({ completionTokens: 6, reasoningTokens: 3 });
  });

  it('uses the usage overrides as given', () => {
    const behaviour = resolveBehaviour({ response: 'a b', usage: { promptTokens: 100, cachedTokens: 60, reasoningTokens: 12 } });
    expect(planAnswer(behaviour, conversation()).usage).toEqual({
      promptTokens: 100,
      cachedTokens: 60,
      reasoningTokens: 12,
      completionTokens: 14,
    });
  });

  it('cuts the answer at the earliest stop sequence', () => {
    const answer = planAnswer(resolveBehaviour({ response: 'alpha beta END gamma STOP' }), conversation({ stop: ['STOP', 'END'] }));
    expect(answer.responseFragments.join('')).toBe('alpha beta ');
    expect(answer).toMatchObject({ finish: 'stop_sequence', stopSequence: 'END' });
  });

  it('ends with length when the max tokens run out, reasoning included', () => {
    const behaviour = resolveBehaviour({ response: 'one two three four', reasoning: 'hmm well' });
    const answer = planAnswer(behaviour, conversation({ maxTokens: 3 }));
    expect(answer.reasoningFragments).toEqual(['hmm ', 'well']);
    expect(answer.responseFragments).toEqual(['one ']);
    expect(answer.finish).toBe('length');
    expect(answer.usage.completionTokens).toBe(3);
    expect(planAnswer(behaviour, conversation({ maxTokens: 6 })).finish).toBe('stop');
  });

  it("answers the scripted turn of the conversation's tool round, then the plain response", () => {
    const behaviour = resolveBehaviour({
      response: 'All done.',
      turns: [
        { response: 'Checking.', toolCalls: [{ name: 'search', arguments: { query: 'a long query text' } }] },
        { toolCalls: [{ name: 'fetch', arguments: { id: 7 } }] },
      ],
    });
    const first = planAnswer(behaviour, conversation());
    expect(first).toMatchObject({ finish: 'tool_calls', responseFragments: ['Checking.'] });
    expect(first.toolCalls).toEqual([
      { id: 'call_fake_0_0', name: 'search', argumentFragments: ['{"query"', ':"a long', ' query t', 'ext"}'] },
    ]);
    expect(first.usage.completionTokens).toBe(1 + 4);
    const second = planAnswer(behaviour, conversation({ toolRounds: 1 }));
    expect(second).toMatchObject({ finish: 'tool_calls', responseFragments: [], toolCalls: [{ id: 'call_fake_1_0', name: 'fetch' }] });
    const last = planAnswer(behaviour, conversation({ toolRounds: 2 }));
    expect(last).toMatchObject({ finish: 'stop', responseFragments: ['All ', 'done.'], toolCalls: [] });
  });

  it('answers the plain response when the request offers no tools or forbids calling them', () => {
    const behaviour = resolveBehaviour({ response: 'Plain.', turns: [{ toolCalls: [{ name: 't', arguments: {} }] }] });
    expect(planAnswer(behaviour, conversation({ toolsAllowed: false }))).toMatchObject({
      finish: 'stop',
      toolCalls: [],
      responseFragments: ['Plain.'],
    });
  });

  it('drops the tool calls of a turn cut at the output limit', () => {
    const behaviour = resolveBehaviour({ turns: [{ response: 'one two three', toolCalls: [{ name: 't', arguments: {} }] }] });
    expect(planAnswer(behaviour, conversation({ maxTokens: 2 }))).toMatchObject({ finish: 'length', toolCalls: [] });
  });
});

describe('parseBehaviour', () => {
  it('accepts a full behaviour', () => {
    const behaviour = {
      response: 'x',
      reasoning: null,
      latencyMs: 5,
      tokenDelayMs: 1,
      chunkSize: 3,
      usage: { promptTokens: 1, cachedTokens: 0, reasoningTokens: 2, completionTokens: 3 },
      error: { status: 429, message: 'slow down', retryAfterSeconds: 2 },
      failAfterFragments: 4,
      turns: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { response: 'Sunny.' }],
      embeddingDimensions: 64,
    };
    expect(parseBehaviour(behaviour)).toEqual(behaviour);
  });

  it.each([
    [[], 'behaviour must be a JSON object'],
    [{ latency: 5 }, 'unknown behaviour field(s): latency'],
    [{ latencyMs: -1 }, 'latencyMs must be a non-negative integer'],
    [{ chunkSize: 0 }, 'chunkSize must be at least 1'],
    [{ usage: { promptTokens: 1.5 } }, 'usage.promptTokens must be a non-negative integer'],
    [{ usage: { inputTokens: 1 } }, 'unknown usage field: inputTokens'],
    [{ error: { status: 200 } }, 'error.status must be an HTTP error status (400-599)'],
    [{ reasoning: 3 }, 'reasoning must be a string or null'],
    [{ turns: {} }, 'turns must be an array or null'],
    [{ turns: [{}] }, 'turns[0] needs toolCalls or a response'],
    [{ turns: [{ toolCalls: [] }] }, 'turns[0].toolCalls must be a non-empty array'],
    [{ turns: [{ tools: [] }] }, 'turns[0] has unknown field(s): tools'],
    [{ turns: [{ toolCalls: [{ name: 'a b', arguments: {} }] }] }, 'turns[0].toolCalls[0].name must be 1-64 letters, digits, _ or -'],
    [{ turns: [{ toolCalls: [{ name: 'a', arguments: '{}' }] }] }, 'turns[0].toolCalls[0].arguments must be a JSON object'],
    [{ embeddingDimensions: 0 }, 'embeddingDimensions must be from 1 to 4096'],
    [{ embeddingDimensions: 5000 }, 'embeddingDimensions must be from 1 to 4096'],
  ])('refuses %j', (value, message) => {
    expect(() => parseBehaviour(value)).toThrow(message);
  });
});
