import type { DeliveryStatus } from '@waggle/contracts';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/** A duration with its unit, as operators write it: `250ms`, `5s`, `30m`, `10h`. */
export const DURATION_FORMAT = /^\d+(\.\d+)?(ms|s|m|h)$/;
/** A comma-separated list of durations, e.g. `5s,5m,30m,2h,5h,10h,10h`. */
export const DURATION_LIST_FORMAT = /^\s*\d+(\.\d+)?(ms|s|m|h)\s*(,\s*\d+(\.\d+)?(ms|s|m|h)\s*)*$/;

export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration (a number followed by ms, s, m or h)`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}

/** The waits before each retry; its length is the number of retries. */
export function parseRetrySchedule(text: string): number[] {
  return text.split(',').map(parseDuration);
}

/**
 * `Retry-After` as delta-seconds or an HTTP date, in ms from `now`; null when absent or
 * unreadable. A date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Number(raw) * 1_000;
  // An HTTP date names its day or month; anything else Date.parse might accept ("-5") is not one.
  const at = /[a-z]/i.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** `base` spread uniformly over ±`jitter` of itself, so retries of one outage do not arrive together. */
export function withJitter(baseMs: number, jitter: number, random: () => number = Math.random): number {
  return Math.max(0, Math.round(baseMs * (1 + jitter * (2 * random() - 1))));
}

export interface RetryPolicy {
  /** Waits before retry 1, 2, …; attempts per budget = schedule.length + 1. */
  schedule: readonly number[];
  jitter: number;
  /** The longest wait a `Retry-After` may impose. */
  maxRetryAfterMs: number;
}

/** What one attempt came to, before any retry decision. */
export type AttemptResult =
  | { kind: 'delivered'; statusCode: number }
  | { kind: 'gone'; statusCode: 410 }
  | { kind: 'refused'; reason: string }
  /** Anything else: a non-2xx answer (3xx included: redirects are not followed), a time-out, a connection error, a missing owner. */
  | { kind: 'failed'; statusCode: number | null; error: string; retryAfterMs: number | null };

export function classifyStatus(statusCode: number, retryAfterMs: number | null): AttemptResult {
  if (statusCode >= 200 && statusCode < 300) return { kind: 'delivered', statusCode };
  if (statusCode === 410) return { kind: 'gone', statusCode: 410 };
  const error = statusCode >= 300 && statusCode < 400 ? `redirect (${statusCode}) not followed` : `receiver answered ${statusCode}`;
  return { kind: 'failed', statusCode, error, retryAfterMs };
}

export interface AttemptDecision {
  status: DeliveryStatus;
  /** Set when another attempt follows: wait this long. */
  retryInMs: number | null;
}

/**
 * The delivery's state after attempt `attempt` (1-based, within the current budget):
 * a failure is retried per the schedule, waiting at least what `Retry-After` asked (up to
 * the cap), until the schedule is used up, when the delivery is dead-lettered.
 */
export function decideAfterAttempt(
  result: AttemptResult,
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): AttemptDecision {
  switch (result.kind) {
    case 'delivered':
      return { status: 'succeeded', retryInMs: null };
    case 'gone':
      return { status: 'gone', retryInMs: null };
    case 'refused':
      return { status: 'refused', retryInMs: null };
    case 'failed': {
      const scheduled = policy.schedule[attempt - 1];
      if (scheduled === undefined) return { status: 'dead_lettered', retryInMs: null };
      const jittered = withJitter(scheduled, policy.jitter, random);
      const askedFor = result.retryAfterMs === null ? 0 : Math.min(result.retryAfterMs, policy.maxRetryAfterMs);
      return { status: 'pending', retryInMs: Math.max(jittered, askedFor) };
    }
  }
}

/** `scheme://host/path` of a URL: what logs show, never its query (which may carry a token). */
export function loggableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '[unparseable url]';
  }
}

/** `waggle_callback_deliveries_total`'s outcome for a delivery's state after an attempt. */
export type DeliveryOutcome = 'delivered' | 'retried' | 'dead_lettered' | 'refused';

/** A 410 Gone ends the delivery like a used-up schedule: both are dead letters an operator may replay. */
export function deliveryOutcomeOf(status: DeliveryStatus): DeliveryOutcome {
  switch (status) {
    case 'succeeded':
      return 'delivered';
    case 'pending':
      return 'retried';
    case 'refused':
      return 'refused';
    default:
      return 'dead_lettered';
  }
}
