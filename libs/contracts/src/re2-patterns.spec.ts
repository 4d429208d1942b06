import { re2PatternProblem, withRe2Pattern } from './re2-patterns';

describe('RE2 patterns (re2-wasm keeps what it allocates in a fixed 16 MiB heap)', () => {
  it('matches in linear time and says why a pattern does not compile', () => {
    expect(withRe2Pattern('^(a+)+$', '', (pattern) => pattern.test(`${'a'.repeat(5_000)}!`))).toEqual({ ok: true, value: false });
    expect(withRe2Pattern('(?<word>[a-z]+) (?<number>\\d+)', '', (pattern) => pattern.exec('take 14')?.groups)).toEqual({
      ok: true,
      value: { word: 'take', number: '14' },
    });
    expect(re2PatternProblem('(unclosed')).toMatch(/^Invalid regular expression: \/\(unclosed\/u: missing \)/);
    expect(re2PatternProblem('(?<a>x)(?<a>y)')).toMatch(/^Invalid regular expression: .*duplicate/i);
    expect(re2PatternProblem('\\d+ days')).toBeUndefined();
  });

  it('frees what a pattern that does not compile allocated: many refused, then one compiles', () => {
    // Unfreed, about 9,800 such refusals fill the heap and every later compilation fails.
    for (let index = 0; index < 15_000; index += 1) {
      const ending = index % 2 ? '(' : '(?<a>x)(?<a>y)';
      expect(re2PatternProblem(`${index}${'[a-z]x'.repeat(50)}${ending}`)).toMatch(/^Invalid regular expression: /);
    }
    expect(withRe2Pattern('^row \\d+ done$', '', (pattern) => pattern.test('row 7 done'))).toEqual({ ok: true, value: true });
  });

  it('frees the group names a compilation reads: many patterns with named groups, then one compiles', () => {
    // re2-wasm itself leaves its map of the group names behind: unfreed, about 5,200 such patterns fill the heap.
    for (let index = 0; index < 8_000; index += 1) {
      const pattern = `(?<${'n'.repeat(1_000)}_${index}>a)|(?<${'m'.repeat(1_000)}_${index}>b)`;
      expect(withRe2Pattern(pattern, '', (compiled) => compiled.exec('b')?.groups)).toEqual({
        ok: true,
        value: { [`${'n'.repeat(1_000)}_${index}`]: undefined, [`${'m'.repeat(1_000)}_${index}`]: 'b' },
      });
    }
    expect(withRe2Pattern('^row \\d+ done$', '', (pattern) => pattern.test('row 7 done'))).toEqual({ ok: true, value: true });
  });
});
