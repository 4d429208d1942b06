import { errorMessage } from '@waggle/errors';
import { flatMetadataProblem } from './flat-metadata';

describe('flat metadata', () => {
  it('accepts scalar values under non-empty keys', () => {
    expect(flatMetadataProblem({ customer: 'acme', retries: 2, vip: true, note: null })).toBeUndefined();
    expect(flatMetadataProblem({})).toBeUndefined();
  });

  it.each([
    [['a'], 'must be an object'],
    ['text', 'must be an object'],
    [null, 'must be an object'],
    [{ '': 1 }, 'non-empty'],
    [{ nested: { a: 1 } }, 'nested objects and arrays'],
    [{ list: [1, 2] }, 'nested objects and arrays'],
    [{ big: Number.POSITIVE_INFINITY }, 'finite'],
    [{ long: 'x'.repeat(2_049) }, 'at most 2048'],
    [Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`k${index}`, index])), 'at most 64 keys'],
  ])('refuses %j', (value, reason) => {
    const problem = flatMetadataProblem(value);
    expect(problem && errorMessage(problem, 'en')).toContain(reason);
  });
});
