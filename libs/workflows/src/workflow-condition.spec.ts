import type { ConditionClause } from './workflow-definition';
import { evaluateClause, evaluateCondition } from './workflow-condition';

const scope = {
  text: 'Hello world',
  blank: '   ',
  n: 5,
  list: ['a', 2, { k: 1 }],
  none: [],
  object: { key: 'v' },
  nothing: { output: null, error: 'failed' },
};

const holds = (left: unknown, op: ConditionClause['op'], right?: unknown) => evaluateClause({ left, op, right }, scope);

describe('evaluateClause', () => {
  it('eq / neq: numbers and numeric strings as numbers, the rest by value', () => {
    expect(holds('{{ n }}', 'eq', 5)).toBe(true);
    expect(holds('{{ n }}', 'eq', '5.0')).toBe(true);
    expect(holds('{{ n | plus: 1 }}', 'eq', 6)).toBe(true);
    expect(holds('{{ text }}', 'eq', 'Hello world')).toBe(true);
    expect(holds('{{ text }}', 'eq', 'hello world')).toBe(false);
    expect(holds('{{ list }}', 'eq', ['a', 2, { k: 1 }])).toBe(true);
    expect(holds('{{ object }}', 'neq', { key: 'w' })).toBe(true);
    expect(holds('{{ nothing.output }}', 'eq', null)).toBe(true);
    expect(holds('{{ nothing.output }}', 'eq', '')).toBe(false);
    expect(holds('{{ missing.value }}', 'eq', null)).toBe(true);
    expect(holds(true, 'eq', 'true')).toBe(false);
  });

  it('gt / gte / lt / lte: numbers (numeric strings too), strings by code point, anything else false', () => {
    expect(holds('{{ n }}', 'gt', 4)).toBe(true);
    expect(holds('{{ n }}', 'gt', 5)).toBe(false);
    expect(holds('{{ n }}', 'gte', '5')).toBe(true);
    expect(holds('10', 'gt', '9')).toBe(true);
    expect(holds('{{ n }}', 'lt', 6)).toBe(true);
    expect(holds('{{ n }}', 'lte', 4)).toBe(false);
    expect(holds('apple', 'lt', 'banana')).toBe(true);
    expect(holds('{{ list }}', 'gt', 1)).toBe(false);
    expect(holds('{{ list }}', 'lte', 1)).toBe(false);
    expect(holds('{{ nothing.output }}', 'lt', 1)).toBe(false);
    expect(holds('{{ nothing.output }}', 'gte', 1)).toBe(false);
  });

  it('contains / not_contains: substring, array element, object key; null contains nothing', () => {
    expect(holds('{{ text }}', 'contains', 'world')).toBe(true);
    expect(holds('{{ text }}', 'contains', 'World')).toBe(false);
    expect(holds('{{ list }}', 'contains', '2')).toBe(true);
    expect(holds('{{ list }}', 'contains', { k: 1 })).toBe(true);
    expect(holds('{{ list }}', 'contains', 'b')).toBe(false);
    expect(holds('{{ object }}', 'contains', 'key')).toBe(true);
    expect(holds('{{ object }}', 'contains', 'v')).toBe(false);
    expect(holds('{{ nothing.output }}', 'contains', 'x')).toBe(false);
    expect(holds('{{ nothing.output }}', 'not_contains', 'x')).toBe(true);
    expect(holds('{{ text }}', 'not_contains', 'moon')).toBe(true);
  });

  it('is_empty / is_not_empty: null, blank strings, [] and {} are empty; numbers and booleans never', () => {
    for (const empty of ['{{ nothing.output }}', '{{ blank }}', '{{ none }}', {}, '', '{{ missing }}'])
      expect(holds(empty, 'is_empty')).toBe(true);
    for (const full of ['{{ text }}', '{{ list }}', '{{ object }}', 0, false, '{{ n }}']) {
      expect(holds(full, 'is_empty')).toBe(false);
      expect(holds(full, 'is_not_empty')).toBe(true);
    }
  });

  it('starts_with / ends_with: strings and numbers as text, anything else false', () => {
    expect(holds('{{ text }}', 'starts_with', 'Hello')).toBe(true);
    expect(holds('{{ text }}', 'ends_with', 'world')).toBe(true);
    expect(holds('{{ text }}', 'ends_with', 'Hello')).toBe(false);
    expect(holds('{{ n }}', 'starts_with', 5)).toBe(true);
    expect(holds('{{ list }}', 'starts_with', 'a')).toBe(false);
    expect(holds('{{ nothing.output }}', 'ends_with', '')).toBe(false);
  });
});

describe('evaluateCondition', () => {
  const yes: ConditionClause = { left: '{{ n }}', op: 'eq', right: 5 };
  const no: ConditionClause = { left: '{{ n }}', op: 'eq', right: 6 };

  it('all: every clause holds', () => {
    expect(evaluateCondition({ all: [yes, yes] }, scope)).toBe(true);
    expect(evaluateCondition({ all: [yes, no] }, scope)).toBe(false);
  });

  it('any: at least one clause holds', () => {
    expect(evaluateCondition({ any: [no, yes] }, scope)).toBe(true);
    expect(evaluateCondition({ any: [no, no] }, scope)).toBe(false);
  });
});
