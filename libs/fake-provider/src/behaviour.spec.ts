import { parseBehaviour, planAnswer, resolveBehaviour, splitWords, type FakeConversation } from './behaviour';

const conversation = (overrides: Partial<FakeConversation> = {}): FakeConversation => ({
  lastUserText: 'hello there',
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
  ])('refuses %j', (value, message) => {
    expect(() => parseBehaviour(value)).toThrow(message);
  });
});
