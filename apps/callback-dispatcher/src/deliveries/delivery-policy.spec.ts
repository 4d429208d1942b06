import { DELIVERY_STATUSES } from '@waggle/contracts';
import {
  classifyStatus,
  decideAfterAttempt,
  deliveryOutcomeOf,
  DURATION_LIST_FORMAT,
  loggableUrl,
  parseDuration,
  parseRetryAfter,
  parseRetrySchedule,
  withJitter,
  type RetryPolicy,
} from './delivery-policy';

describe('retry schedule', () => {
  it('reads the default schedule as seven waits', () => {
    expect(parseRetrySchedule('5s,5m,30m,2h,5h,10h,10h')).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('reads milliseconds, fractions and spaces', () => {
    expect(parseRetrySchedule('200ms, 1.5s ,0ms')).toEqual([200, 1_500, 0]);
    expect(parseDuration('24h')).toBe(86_400_000);
  });

  it('refuses a duration without a unit', () => {
    expect(() => parseDuration('5')).toThrow('not a duration');
    expect(() => parseRetrySchedule('5s,,5m')).toThrow('not a duration');
    expect(DURATION_LIST_FORMAT.test('5s,5m')).toBe(true);
    expect(DURATION_LIST_FORMAT.test('5s,')).toBe(false);
    expect(DURATION_LIST_FORMAT.test('5 seconds')).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date relative to now, a past date as now', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
  });

  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['3', '9'], now)).toBe(3_000);
  });
});

describe('withJitter', () => {
  it('stays within ±jitter of the base', () => {
    expect(withJitter(1_000, 0.1, () => 0)).toBe(900);
    expect(withJitter(1_000, 0.1, () => 0.999_999)).toBe(1_100);
    expect(withJitter(1_000, 0.1, () => 0.5)).toBe(1_000);
    for (let index = 0; index < 1_000; index += 1) {
      const delay = withJitter(5_000, 0.1);
      expect(delay).toBeGreaterThanOrEqual(4_500);
      expect(delay).toBeLessThanOrEqual(5_500);
    }
  });

  it('is exact without jitter', () => {
    expect(withJitter(1_234, 0)).toBe(1_234);
  });
});

describe('classifyStatus', () => {
  it('treats every 2xx as delivered', () => {
    expect(classifyStatus(200, null)).toEqual({ kind: 'delivered', statusCode: 200 });
    expect(classifyStatus(204, null)).toEqual({ kind: 'delivered', statusCode: 204 });
  });

  it('stops at 410', () => {
    expect(classifyStatus(410, 5_000)).toEqual({ kind: 'gone', statusCode: 410 });
  });

  it('fails a redirect, which is not followed', () => {
    expect(classifyStatus(302, null)).toEqual({
      kind: 'failed',
      statusCode: 302,
      error: 'redirect (302) not followed',
      retryAfterMs: null,
    });
  });

  it('fails other answers, keeping Retry-After', () => {
    expect(classifyStatus(503, 2_000)).toEqual({ kind: 'failed', statusCode: 503, error: 'receiver answered 503', retryAfterMs: 2_000 });
    expect(classifyStatus(404, null)).toMatchObject({ kind: 'failed', statusCode: 404 });
  });
});

describe('decideAfterAttempt', () => {
  const policy: RetryPolicy = { schedule: [1_000, 60_000], jitter: 0, maxRetryAfterMs: 10_000 };
  const failed = (retryAfterMs: number | null = null) => ({
    kind: 'failed' as const,
    statusCode: 500,
    error: 'receiver answered 500',
    retryAfterMs,
  });

  it('ends on delivered, gone and refused', () => {
    expect(decideAfterAttempt({ kind: 'delivered', statusCode: 200 }, 1, policy)).toEqual({ status: 'succeeded', retryInMs: null });
    expect(decideAfterAttempt({ kind: 'gone', statusCode: 410 }, 1, policy)).toEqual({ status: 'gone', retryInMs: null });
    expect(decideAfterAttempt({ kind: 'refused', reason: 'private address' }, 1, policy)).toEqual({ status: 'refused', retryInMs: null });
  });

  it('retries per schedule, then dead-letters after schedule.length + 1 attempts', () => {
    expect(decideAfterAttempt(failed(), 1, policy)).toEqual({ status: 'pending', retryInMs: 1_000 });
    expect(decideAfterAttempt(failed(), 2, policy)).toEqual({ status: 'pending', retryInMs: 60_000 });
    expect(decideAfterAttempt(failed(), 3, policy)).toEqual({ status: 'dead_lettered', retryInMs: null });
  });

  it('waits for Retry-After when it is longer than the schedule, up to the cap', () => {
    expect(decideAfterAttempt(failed(5_000), 1, policy).retryInMs).toBe(5_000);
    expect(decideAfterAttempt(failed(500), 1, policy).retryInMs).toBe(1_000);
    expect(decideAfterAttempt(failed(3_600_000), 1, policy).retryInMs).toBe(10_000);
    // The cap limits what Retry-After may impose, never the schedule itself.
    expect(decideAfterAttempt(failed(3_600_000), 2, policy).retryInMs).toBe(60_000);
  });

  it('applies jitter to the scheduled wait', () => {
    const jittery: RetryPolicy = { ...policy, jitter: 0.5 };
    expect(decideAfterAttempt(failed(), 1, jittery, () => 0).retryInMs).toBe(500);
    expect(decideAfterAttempt(failed(), 1, jittery, () => 0.999_999).retryInMs).toBe(1_500);
  });
});

describe('loggableUrl', () => {
  it('keeps origin and path, drops query, fragment and credentials', () => {
    expect(loggableUrl('https://user:pw@hooks.example.com:8443/cb/x?token=abc#frag')).toBe('https://hooks.example.com:8443/cb/x');
    expect(loggableUrl('not a url')).toBe('[unparseable url]');
  });
});

describe('deliveryOutcomeOf', () => {
  it('labels each state after an attempt, a 410 Gone as a dead letter', () => {
    expect(DELIVERY_STATUSES.map((status) => [status, deliveryOutcomeOf(status)])).toEqual([
      ['pending', 'retried'],
      ['succeeded', 'delivered'],
      ['gone', 'dead_lettered'],
      ['refused', 'refused'],
      ['dead_lettered', 'dead_lettered'],
    ]);
  });
});
