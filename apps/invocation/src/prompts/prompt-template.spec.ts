import { WaggleException } from '@waggle/errors';
import { renderTemplate } from './prompt-template';

describe('renderTemplate', () => {
  it('prints text as it is, objects and arrays as JSON, null as nothing', () => {
    expect(renderTemplate('Q: {{ question }}', { question: 'open today?' })).toBe('Q: open today?');
    expect(renderTemplate('{{ a }}|{{ b }}|{{ c }}', { a: { x: 1 }, b: [1, 'two'], c: null })).toBe('{"x":1}|[1,"two"]|');
  });

  it("prints a caller's object whose toString or valueOf is not a function as JSON (it answered 500)", () => {
    expect(renderTemplate('{{ question }}', { question: { toString: 'x', valueOf: 1 } })).toBe('{"toString":"x","valueOf":1}');
    expect(renderTemplate('{{ question }}', { question: { toString: null } })).toBe('{"toString":null}');
  });

  it('refuses inputs a filter cannot take as 422 validation_error naming the inputs', () => {
    let thrown: unknown;
    try {
      renderTemplate('{{ question | upcase }}', { question: { toString: null } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WaggleException);
    expect(thrown).toMatchObject({ code: 'validation_error', status: 422, details: [{ field: 'inputs' }] });
  });
});
