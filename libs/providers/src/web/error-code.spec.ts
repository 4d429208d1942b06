import { errorCodeOf } from './error-code';

describe('errorCodeOf', () => {
  it('finds the code on the error or down its causes (undici puts the socket error there)', () => {
    expect(errorCodeOf(Object.assign(new Error('top'), { code: 'ECONNRESET' }))).toBe('ECONNRESET');
    const fetchFailed = new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
    expect(errorCodeOf(fetchFailed)).toBe('ECONNREFUSED');
  });

  it('answers null without a code, for a non-object and on a cause cycle', () => {
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(errorCodeOf(cyclic)).toBeNull();
    expect(errorCodeOf('boom')).toBeNull();
    expect(errorCodeOf(new Error('no code'))).toBeNull();
  });
});
