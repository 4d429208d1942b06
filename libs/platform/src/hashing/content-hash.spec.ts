import { canonicalJson, contentHashOf } from './content-hash';

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves undefined properties out', () => {
    const json = canonicalJson({ b: 1, a: [{ d: null, c: 'x' }], skipped: undefined }, 'code-unit');
    expect(json).toBe('{"a":[{"c":"x","d":null}],"b":1}');
  });

  it('orders keys by locale for prompts and by UTF-16 code unit for workflows (the stored hashes depend on it)', () => {
    const definition = { b: 1, B: 2, _a: 3 };
    expect(canonicalJson(definition, 'locale')).toBe('{"_a":3,"b":1,"B":2}');
    expect(canonicalJson(definition, 'code-unit')).toBe('{"B":2,"_a":3,"b":1}');
  });
});

describe('contentHashOf', () => {
  it('hashes equal definitions equally whatever their key order', () => {
    expect(contentHashOf({ model: 'm', params: { top_p: 1, temperature: 0 } }, 'locale')).toBe(
      contentHashOf({ params: { temperature: 0, top_p: 1 }, model: 'm' }, 'locale'),
    );
    expect(contentHashOf({ a: 1 }, 'code-unit')).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
  });
});
