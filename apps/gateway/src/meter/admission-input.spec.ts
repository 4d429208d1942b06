import { bodyBytesOf, endUserOf, resetDuration, tokenEstimate } from './admission-input';
import type { AdmissionDecision } from './admission';
import { setAdmissionHeaders } from './api-meter.guard';

describe('what an admission reads from a request', () => {
  it('takes the end user from a non-empty string `user` only', () => {
    expect(endUserOf({ user: 'ann' })).toBe('ann');
    expect(endUserOf({ user: '' })).toBeUndefined();
    expect(endUserOf({ user: 42 })).toBeUndefined();
    expect(endUserOf(['ann'])).toBeUndefined();
    expect(endUserOf(null)).toBeUndefined();
  });

  it("estimates a run's tokens: a token per 4 bytes of body, plus the body's own answer cap or the default", () => {
    expect(tokenEstimate({}, 10, 1024)).toBe(3 + 1024);
    expect(tokenEstimate({ max_tokens: 50 }, 8, 1024)).toBe(2 + 50);
    expect(tokenEstimate({ max_completion_tokens: 70, max_tokens: 50 }, 0, 1024)).toBe(70);
    expect(tokenEstimate({ max_output_tokens: 9 }, 4, 1024)).toBe(1 + 9);
    for (const bad of [0, -5, 1.5, '100', null]) expect(tokenEstimate({ max_tokens: bad }, 4, 1024)).toBe(1 + 1024);
    expect(tokenEstimate('not an object', 4, 16)).toBe(17);
  });

  it("measures a body by its Content-Length, else its JSON text's bytes", () => {
    expect(bodyBytesOf('120', { a: 1 })).toBe(120);
    expect(bodyBytesOf(undefined, { a: 'é' })).toBe(Buffer.byteLength('{"a":"é"}'));
    expect(bodyBytesOf('nonsense', undefined)).toBe(0);
  });

  it("writes waits as OpenAI's reset headers do", () => {
    expect(resetDuration(0)).toBe('0s');
    expect(resetDuration(-4)).toBe('0s');
    expect(resetDuration(120)).toBe('120ms');
    expect(resetDuration(1_000)).toBe('1s');
    expect(resetDuration(1_001)).toBe('2s');
    expect(resetDuration(360_000)).toBe('6m0s');
    expect(resetDuration(3_723_000)).toBe('1h2m3s');
  });
});

describe('the headers of an admission', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const base: AdmissionDecision = {
    allowed: true,
    unloaded: false,
    projectionMissing: false,
    current: 3,
    limit: 10,
    resetsAt: new Date('2026-11-22T00:00:00Z'),
    creditsExhausted: false,
  };
  const headersOf = (decision: AdmissionDecision) => {
    const headers: Record<string, string> = {};
    setAdmissionHeaders({ setHeader: (name: string, value: string) => ((headers[name] = value), undefined) } as never, decision, now);
    return headers;
  };

  it('keeps the daily headers and adds the two trios only where a limit applies', () => {
    expect(headersOf(base)).toEqual({ 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '7', 'X-RateLimit-Reset': '1795305600' });
    expect(
      headersOf({
        ...base,
        limit: null,
        requests: { limit: 60, remaining: 59, resetMs: 90_000 },
        tokens: { limit: 1000, remaining: 0, resetMs: 400 },
      }),
    ).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1m30s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '400ms',
    });
  });

  it('says when to retry a rate refusal and a daily one, never a budget refusal', () => {
    const refused = { ...base, allowed: false, limit: null };
    expect(
      headersOf({ ...refused, refusal: { reason: 'requests_per_minute', scope: 'api_key', scopeId: 'k', limit: 5, retryAfterMs: 1_200 } })[
        'Retry-After'
      ],
    ).toBe('2');
    expect(headersOf({ ...base, allowed: false, current: 10, refusal: { reason: 'daily_limit' } })['Retry-After']).toBe('43200');
    expect(
      headersOf({
        ...refused,
        refusal: { reason: 'budget', scope: 'workspace', scopeId: null, period: 'day', limitMicros: 1, spentMicros: 1 },
      })['Retry-After'],
    ).toBeUndefined();
  });
});
