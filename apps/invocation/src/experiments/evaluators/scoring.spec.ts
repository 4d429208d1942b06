import {
  comparedWith,
  containsMatch,
  cosine,
  costWithin,
  exactMatch,
  latencyWithin,
  NO_EXPECTED_OUTPUT,
  quote,
  REASON_QUOTE_CHARS,
  regexMatch,
  schemaMatch,
  similarityVerdict,
} from './scoring';

const text = (value: string) => ({ output: value, text: value });
const json = (value: unknown) => ({ output: value, text: JSON.stringify(value) });

describe('the comparing evaluators', () => {
  it("compare with the evaluator's value, else the row's expected output; neither is 'no expected output'", () => {
    expect(comparedWith('own', 'row')).toBe('own');
    expect(comparedWith(undefined, 'row')).toBe('row');
    expect(comparedWith(undefined, null)).toBeUndefined();
    expect(comparedWith(undefined, undefined)).toBeUndefined();
    for (const verdict of [exactMatch(text('a'), undefined), containsMatch(text('a'), undefined), regexMatch(text('a'), undefined)]) {
      expect(verdict).toEqual({ score: 0, passed: false, reason: 'no expected output' });
    }
    expect(NO_EXPECTED_OUTPUT).toEqual({ score: 0, passed: false, reason: 'no expected output' });
  });

  it('exact: texts equal but for surrounding whitespace; JSON on either side compared as canonical JSON', () => {
    expect(exactMatch(text('14 days\n'), '14 days')).toEqual({ score: 1, passed: true, reason: 'equal' });
    expect(exactMatch(text('14 Days'), '14 days')).toEqual({ score: 0, passed: false, reason: 'expected "14 days", got "14 Days"' });
    // A structured output against an expected object: key order and spacing do not matter.
    expect(exactMatch(json({ b: [1, 2], a: 'x' }), { a: 'x', b: [1, 2] }).passed).toBe(true);
    expect(exactMatch(json({ a: 'x' }), { a: 'y' })).toEqual({
      score: 0,
      passed: false,
      reason: 'expected "{\\"a\\":\\"y\\"}", got "{\\"a\\":\\"x\\"}"',
    });
    // Text that is JSON, against an expected object; an expected JSON text against a structured output.
    expect(exactMatch(text('{ "a": 1 }'), { a: 1 }).passed).toBe(true);
    expect(exactMatch(json({ a: 1 }), '{"a": 1}').passed).toBe(true);
    expect(exactMatch(text('not json'), { a: 1 }).passed).toBe(false);
    expect(exactMatch(text('42'), 42).passed).toBe(true);
  });

  it('contains: case-insensitive unless case_sensitive; a JSON value is looked for as its canonical text', () => {
    expect(containsMatch(text('Refunds take 14 DAYS.'), '14 days')).toEqual({ score: 1, passed: true, reason: 'contains "14 days"' });
    expect(containsMatch(text('Refunds take 14 DAYS.'), '14 days', true)).toEqual({
      score: 0,
      passed: false,
      reason: 'expected to contain "14 days", got "Refunds take 14 DAYS."',
    });
    expect(containsMatch(json({ status: 'ok', extra: 1 }), { status: 'ok' }).passed).toBe(false);
    expect(containsMatch(text('answer: {"status":"ok"}'), { status: 'ok' }).passed).toBe(true);
  });

  it('regex: RE2 matching anywhere; an expected output that is no pattern fails the evaluation with why', () => {
    expect(regexMatch(text('It takes 14 days.'), '\\d+ days')).toEqual({ score: 1, passed: true, reason: 'matches /\\d+ days/' });
    expect(regexMatch(text('It takes two weeks.'), '^\\d+ days$')).toEqual({
      score: 0,
      passed: false,
      reason: 'expected a match of "^\\\\d+ days$", got "It takes two weeks."',
    });
    // Linear time: the pattern that backtracks for ever in a RegExp answers at once.
    expect(regexMatch(text(`${'a'.repeat(5_000)}!`), '^(a+)+$').passed).toBe(false);
    const broken = regexMatch(text('x'), '(unclosed');
    expect(broken).toEqual({ score: 0, passed: false, reason: expect.stringMatching(/^not a valid RE2 pattern: .*missing \)/) });
    // Refused from memory the second time (re2-wasm cannot free a pattern that failed to compile).
    expect(regexMatch(text('x'), '(unclosed')).toEqual(broken);
    expect(regexMatch(text('x'), { a: 1 })).toEqual({
      score: 0,
      passed: false,
      reason: 'the expected output is not a pattern (text): "{\\"a\\":1}"',
    });
  });

  it('regex: many patterns compiled one after the other do not exhaust the RE2 heap (each is freed)', () => {
    // Unfreed, about 2,000 such patterns fill re2-wasm's 16 MiB heap and every later one fails.
    let passed = 0;
    for (let index = 0; index < 4_000; index += 1) {
      if (regexMatch(text(`row ${index} done`), `row ${index} (done|failed)[a-z]{0,20}`).passed) passed += 1;
    }
    expect(passed).toBe(4_000);
  });

  it('json_schema: the output (parsed when text) must be valid; the reason lists the first violations', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a', 'b', 'c', 'd'] };
    expect(schemaMatch(json({ a: 'x', b: 1, c: 0, d: 0 }), schema)).toEqual({ score: 1, passed: true, reason: 'valid' });
    expect(schemaMatch(text('{"a":"x","b":1,"c":0,"d":0}'), schema).passed).toBe(true);
    expect(schemaMatch(text('not json'), schema)).toEqual({ score: 0, passed: false, reason: '(the whole output): is not JSON' });
    expect(schemaMatch(json({ a: 1, b: 'x' }), schema)).toEqual({
      score: 0,
      passed: false,
      reason: "/c: must have required property 'c'; /d: must have required property 'd'; /a: must be string (and 1 more)",
    });
  });

  it('max_latency_ms and max_cost: at most the value passes; an unknown cost does not', () => {
    expect(latencyWithin(2000, 2000)).toEqual({ score: 1, passed: true, reason: 'took 2000 ms (within 2000 ms)' });
    expect(latencyWithin(2001, 2000)).toEqual({ score: 0, passed: false, reason: 'took 2001 ms (over 2000 ms)' });
    expect(costWithin(10_000, 0.01)).toEqual({ score: 1, passed: true, reason: 'cost 0.01 USD (within 0.01 USD)' });
    expect(costWithin(10_001, 0.01)).toEqual({ score: 0, passed: false, reason: 'cost 0.010001 USD (over 0.01 USD)' });
    expect(costWithin(null, 1)).toEqual({
      score: 0,
      passed: false,
      reason: 'cost unknown (no price for the model), so not shown to be within 1 USD',
    });
  });

  it('similarity: max(0, cosine), rounded, passing at or above the threshold', () => {
    expect(cosine([1, 0], [1, 0])).toBeCloseTo(1);
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 0], [-1, 0])).toBeCloseTo(-1);
    expect(cosine([0, 0], [1, 0])).toBe(0);
    expect(similarityVerdict(0.81234567, 0.8)).toEqual({ score: 0.8123, passed: true, reason: 'similarity 0.8123 (at or above 0.8)' });
    expect(similarityVerdict(0.8, 0.8).passed).toBe(true);
    expect(similarityVerdict(-0.4, 0.1)).toEqual({ score: 0, passed: false, reason: 'similarity 0 (below 0.1)' });
  });

  it('quote long texts in reasons cut to a few hundred characters', () => {
    const quoted = quote('x'.repeat(REASON_QUOTE_CHARS + 50));
    expect(quoted).toBe(JSON.stringify(`${'x'.repeat(REASON_QUOTE_CHARS)}…`));
    expect(exactMatch(text('y'.repeat(10_000)), 'z').reason.length).toBeLessThan(2 * REASON_QUOTE_CHARS + 40);
  });
});
