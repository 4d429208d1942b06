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
    expect(answer.usage).toEqual({ promptTokens: 7, cachedTokens: 0, cacheWriteTokens: 0, completionTokens: 3, reasoningTokens: 0 });
  });

  it('sends reasoning first, groups words by chunkSize and counts reasoning in the completion', () => {
    const answer = planAnswer(resolveBehaviour({ response: 'one two three', reasoning: 'let me think', chunkSize: 2 }), conversation());
    expect(answer.reasoningFragments).toEqual(['let me ', 'think']);
    expect(answer.responseFragments).toEqual(['one two ', 'three']);
    expect(answer.usage).toMatchObject({ completionTokens: 6, reasoningTokens: 3 });
  });

  it('uses the usage overrides as given', () => {
    const usage = { promptTokens: 100, cachedTokens: 60, cacheWriteTokens: 30, reasoningTokens: 12 };
    const behaviour = resolveBehaviour({ response: 'a b', usage });
    expect(planAnswer(behaviour, conversation()).usage).toEqual({
      promptTokens: 100,
      cachedTokens: 60,
      cacheWriteTokens: 30,
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

describe('planAnswer with a json behaviour', () => {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, population: { type: 'integer' } },
    required: ['city', 'population'],
  };
  const structured = (mode: 'json_schema' | 'json_tool') => conversation({ structured: { mode, schema } });

  it('answers the smallest instance of the schema as text, in JSON pieces', () => {
    const answer = planAnswer(resolveBehaviour({ response: 'ignored', json: { answer: 'valid' } }), structured('json_schema'));
    expect(answer.responseFragments).toEqual(['{"city":', '"example', '","popul', 'ation":0', '}']);
    expect(answer).toMatchObject({ finish: 'stop', toolCalls: [], json: 'valid', usage: { completionTokens: 5 } });
  });

  it('answers a call of the json tool when the request forced it, with stop reason tool_calls', () => {
    const answer = planAnswer(
      resolveBehaviour({ json: { answer: 'valid', value: { city: 'Oslo', population: 700000 } } }),
      structured('json_tool'),
    );
    expect(answer).toMatchObject({ finish: 'tool_calls', responseFragments: [], json: 'valid' });
    expect(answer.toolCalls).toHaveLength(1);
    expect(answer.toolCalls[0]).toMatchObject({ id: 'call_fake_0_0', name: 'json' });
    expect(JSON.parse(answer.toolCalls[0].argumentFragments.join(''))).toEqual({ city: 'Oslo', population: 700000 });
  });

  it('answers invalid_once invalid only for the first JSON answer of the model', () => {
    const behaviour = resolveBehaviour({ json: { answer: 'invalid_once' } });
    const first = planAnswer(behaviour, structured('json_schema'), 0);
    expect(first.json).toBe('invalid');
    expect(JSON.parse(first.responseFragments.join(''))).toEqual({ population: 0 });
    const second = planAnswer(behaviour, structured('json_schema'), 1);
    expect(second.json).toBe('valid');
    expect(JSON.parse(second.responseFragments.join(''))).toEqual({ city: 'example', population: 0 });
  });

  it('answers invalid every time, the scripted invalidValue when given', () => {
    const behaviour = resolveBehaviour({ json: { answer: 'invalid', invalidValue: { city: 7 } } });
    for (const before of [0, 1, 5]) {
      const answer = planAnswer(behaviour, structured('json_tool'), before);
      expect(answer.json).toBe('invalid');
      expect(JSON.parse(answer.toolCalls[0].argumentFragments.join(''))).toEqual({ city: 7 });
    }
  });

  it('answers the value, or {}, to a request without a schema', () => {
    expect(planAnswer(resolveBehaviour({ json: { answer: 'valid' } }), conversation()).responseFragments).toEqual(['{}']);
    const scripted = planAnswer(resolveBehaviour({ json: { answer: 'valid', value: [1, 2] } }), conversation());
    expect(scripted.responseFragments.join('')).toBe('[1,2]');
  });

  it("answers the value of the first case whose text is in the request's last user message, else the value", () => {
    const behaviour = resolveBehaviour({
      json: {
        answer: 'valid',
        value: { verdict: 'default' },
        cases: [
          { when: 'refund', value: { verdict: 'first' } },
          { when: 'refund policy', value: { verdict: 'second' } },
        ],
      },
    });
    const answered = (lastUserText: string) => JSON.parse(planAnswer(behaviour, conversation({ lastUserText })).responseFragments.join(''));
    expect(answered('the refund policy')).toEqual({ verdict: 'first' });
    expect(answered('shipping')).toEqual({ verdict: 'default' });
  });

  it('still answers the scripted tool-call turns first', () => {
    const behaviour = resolveBehaviour({ json: { answer: 'valid' }, turns: [{ toolCalls: [{ name: 'lookup', arguments: {} }] }] });
    const first = planAnswer(behaviour, structured('json_tool'));
    expect(first.toolCalls.map((call) => call.name)).toEqual(['lookup']);
    expect(first.json).toBeUndefined();
    expect(planAnswer(behaviour, conversation({ structured: { mode: 'json_tool', schema }, toolRounds: 1 })).toolCalls[0].name).toBe(
      'json',
    );
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
      hang: false,
      json: { answer: 'invalid_once', value: { a: 1 }, invalidValue: 'nope', cases: [{ when: 'x', value: null }] },
    };
    expect(parseBehaviour(behaviour)).toEqual(behaviour);
    expect(parseBehaviour({ json: null })).toEqual({ json: null });
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
    [{ hang: 'yes' }, 'hang must be true or false'],
    [{ hang: null }, 'hang must be true or false'],
    [{ json: true }, 'json must be an object or null'],
    [{ json: [] }, 'json must be an object or null'],
    [{ json: {} }, 'json.answer must be one of valid, invalid_once, invalid'],
    [{ json: { answer: 'sometimes' } }, 'json.answer must be one of valid, invalid_once, invalid'],
    [{ json: { answer: 'valid', valid: {} } }, 'json has unknown field(s): valid'],
    [{ json: { answer: 'valid', cases: {} } }, 'json.cases must be an array'],
    [{ json: { answer: 'valid', cases: [{ when: '', value: 1 }] } }, 'json.cases[0] must be {when: non-empty text, value}'],
    [{ json: { answer: 'valid', cases: [{ when: 'x' }] } }, 'json.cases[0] must be {when: non-empty text, value}'],
  ])('refuses %j', (value, message) => {
    expect(() => parseBehaviour(value)).toThrow(message);
  });
});
