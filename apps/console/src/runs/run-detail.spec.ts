import { durationText, modelAttemptsOf, shown, toolCallsOf, traceUrl } from './run-detail';

describe('modelAttemptsOf', () => {
  it('lists data.attempts, a fallback after a failed call', () => {
    const attempts = [
      { model: 'gpt-5.4-mini', error_code: 'rate_limited', status: 429, duration_ms: 41 },
      { model: 'claude-haiku-5-5', error_code: null, duration_ms: 812 },
    ];
    expect(modelAttemptsOf({ response: 'hi', attempts: [...attempts, { nonsense: true }] })).toEqual(attempts);
  });

  it('answers the one call the answer names, and none without a model', () => {
    expect(modelAttemptsOf({ model: 'fake-chat', response: 'hi' })).toEqual([
      { model: 'fake-chat', error_code: null, duration_ms: Number.NaN },
    ]);
    expect(modelAttemptsOf({ output: 'x' })).toEqual([]);
    expect(modelAttemptsOf(null)).toEqual([]);
  });
});

describe('toolCallsOf', () => {
  it("lists an agent run's tool calls", () => {
    const call = { tool_name: 'knowledge_search', tool_input: '{"q":"x"}', observation: 'found', duration_ms: 3 };
    expect(toolCallsOf({ tool_calls: [call, 'junk'] })).toEqual([call]);
    expect(toolCallsOf({ response: 'hi' })).toEqual([]);
  });
});

describe('traceUrl', () => {
  const id = '4bf92f3577b34da6a3ce929d0e0e4736';
  it('fills the template in', () => {
    expect(traceUrl('https://jaeger.example.com/trace/{trace_id}', id)).toBe(`https://jaeger.example.com/trace/${id}`);
    expect(traceUrl('http://tempo/explore?a={trace_id}&b={trace_id}', id)).toBe(`http://tempo/explore?a=${id}&b=${id}`);
  });

  it('is null without a template, a trace or an http(s) result', () => {
    expect([
      traceUrl(null, id),
      traceUrl('https://x/{trace_id}', null),
      traceUrl('https://x/trace', id),
      traceUrl('javascript:alert(1)//{trace_id}', id),
    ]).toEqual([null, null, null, null]);
  });
});

describe('shown and durationText', () => {
  it('format values for people', () => {
    expect([shown('text'), shown({ a: 1 }), shown(undefined)]).toEqual(['text', '{\n  "a": 1\n}', '']);
    expect([durationText(12.4), durationText(1500), durationText(null), durationText(Number.NaN)]).toEqual(['12 ms', '1.5 s', '', '']);
  });
});
