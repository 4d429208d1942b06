import { WaggleException } from '@waggle/errors';
import { assertStorableInput, findUnstorableInput, MAX_INPUT_DEPTH, StorableInputPipe } from './storable-input';

function nestedArrays(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
}

/** What the call threw (each case below expects it to throw a WaggleException). */
const thrown = (run: () => unknown): WaggleException | undefined => {
  try {
    run();
  } catch (error) {
    return error as WaggleException;
  }
};

describe('storable input', () => {
  it('accepts ordinary input, nested up to the limit', () => {
    expect(findUnstorableInput({ deployment: 'a', inputs: { list: [1, 'two', { three: null }] } })).toEqual({
      nulFields: [],
      unpairedFields: [],
    });
    expect(findUnstorableInput(nestedArrays(MAX_INPUT_DEPTH))).toEqual({ nulFields: [], unpairedFields: [] });
  });

  it('stops at the first level past the limit, however deep the input goes (no recursion to overflow)', () => {
    expect(findUnstorableInput(nestedArrays(MAX_INPUT_DEPTH + 1))).toEqual({
      tooDeep: Array(MAX_INPUT_DEPTH).fill('0').join('.'),
      nulFields: [],
      unpairedFields: [],
    });
    expect(findUnstorableInput({ inputs: nestedArrays(200_000) }).tooDeep).toMatch(/^inputs\.0\.0/);
  });

  it('names every string and key holding a NUL character', () => {
    const found = findUnstorableInput({ deployment: 'a\u0000b', inputs: { 'k\u0000': 'fine', list: ['ok', '\u0000'] } });
    expect(found.nulFields.sort()).toEqual(['deployment', 'inputs.k\u0000', 'inputs.list.1']);
  });

  it('names every string and key holding half a surrogate pair alone, and passes whole pairs', () => {
    const found = findUnstorableInput({ metadata: { generated: '\ud800', ['k\udc00']: 'fine', emoji: '🙂' }, list: ['a\ud83d'] });
    expect(found.unpairedFields.sort()).toEqual(['list.0', 'metadata.generated', 'metadata.k\udc00']);
    const refused = thrown(() => assertStorableInput({ metadata: { generated: '\ud800' } }));
    expect(refused?.code).toBe('validation_error');
    expect(refused?.details).toEqual([{ field: 'metadata.generated', messages: [expect.stringContaining('surrogate')] }]);
    expect(() => assertStorableInput({ metadata: { emoji: '🙂' } })).not.toThrow();
  });

  it('answers too deep as 400 invalid_request and NUL as 422 validation_error naming the fields', () => {
    const deep = thrown(() => assertStorableInput({ inputs: nestedArrays(5_000) }));
    expect(deep).toBeInstanceOf(WaggleException);
    expect(deep).toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: `Request input is nested more than ${MAX_INPUT_DEPTH} levels deep`,
    });
    const nul = thrown(() => assertStorableInput({ deployment: 'a\u0000b', variant: '\u0000' }));
    expect(nul).toBeInstanceOf(WaggleException);
    expect(nul).toMatchObject({ code: 'validation_error', status: 422 });
    expect(nul?.details).toEqual([
      { field: 'deployment', messages: ['deployment must not contain the NUL character (\\u0000)'] },
      { field: 'variant', messages: ['variant must not contain the NUL character (\\u0000)'] },
    ]);
  });

  it('throws exactly when the full walk finds something (the quick check before it agrees)', () => {
    const values: unknown[] = [
      { deployment: 'a', inputs: { list: [1, 'two', { three: null }] } },
      nestedArrays(MAX_INPUT_DEPTH),
      nestedArrays(MAX_INPUT_DEPTH + 1),
      { a: { 'k\u0000': 1 } },
      ['x', ['y\u0000']],
      'plain',
      'nul\u0000',
      null,
      undefined,
      42,
      { deep: nestedArrays(MAX_INPUT_DEPTH - 1) },
      { deep: nestedArrays(MAX_INPUT_DEPTH) },
    ];
    for (const value of values) {
      const found = findUnstorableInput(value);
      const refused = found.tooDeep !== undefined || found.nulFields.length > 0;
      expect([value, thrown(() => assertStorableInput(value)) !== undefined]).toEqual([value, refused]);
    }
  });

  it('names a path or query parameter by its name, and leaves custom parameters alone', () => {
    const pipe = new StorableInputPipe();
    expect(thrown(() => pipe.transform('a\u0000', { type: 'param', data: 'deployment' }))?.details).toEqual([
      { field: 'deployment', messages: ['deployment must not contain the NUL character (\\u0000)'] },
    ]);
    expect(thrown(() => pipe.transform({ user: '\u0000' }, { type: 'query' }))?.details).toEqual([
      { field: 'user', messages: ['user must not contain the NUL character (\\u0000)'] },
    ]);
    expect(pipe.transform('a\u0000', { type: 'custom' })).toBe('a\u0000');
  });
});
