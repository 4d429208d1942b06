export interface BackoffSettings {
  /** The wait before the first retry. */
  baseMs: number;
  /** No wait is longer than this, however long the outage lasts. */
  maxMs: number;
}

/** The wait before retry number `retry` (from 1): `baseMs`, doubled each time, never above `maxMs`. */
export function cappedBackoffMs(retry: number, { baseMs, maxMs }: BackoffSettings): number {
  const doublings = Math.min(Math.max(0, Math.floor(retry) - 1), 30);
  return Math.min(maxMs, baseMs * 2 ** doublings);
}

/** How often an outage that goes on is logged at most. */
export const OUTAGE_SUMMARY_INTERVAL_MS = 30_000;

/** The part of a Nest Logger an outage log writes to. */
export interface OutageLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  log(fields: Record<string, unknown>, message: string): void;
}

/**
 * Logs an outage without flooding the log however often the work is retried: the first failure
 * at once, then at most one summary line per interval with how many failures it counted, and
 * one line when the work succeeds again. (A retry loop that logs every failure wrote thousands
 * of identical lines a minute for one stuck record.)
 */
export class OutageLog {
  private failures = 0;
  private startedAt = 0;
  private lastLineAt = 0;
  private failuresSinceLastLine = 0;

  constructor(
    private readonly logger: OutageLogger,
    /** What fails, for the lines: "publishing ledger records", "prompt-runs jobs". */
    private readonly what: string,
    private readonly intervalMs = OUTAGE_SUMMARY_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get ongoing(): boolean {
    return this.failures > 0;
  }

  /** One failure of the work (it will be retried). */
  failed(error: unknown, fields: Record<string, unknown> = {}): void {
    const now = this.now();
    this.failures += 1;
    if (this.failures === 1) {
      this.startedAt = now;
      this.lastLineAt = now;
      this.failuresSinceLastLine = 0;
      this.logger.warn(
        { ...fields, err: error },
        `${this.what} failed (an outage of a dependency); retrying with backoff, at most one line every ${Math.round(this.intervalMs / 1000)} s until it works again`,
      );
      return;
    }
    this.failuresSinceLastLine += 1;
    if (now - this.lastLineAt < this.intervalMs) return;
    this.logger.warn(
      {
        ...fields,
        err: error,
        failures: this.failures,
        failures_since_last_line: this.failuresSinceLastLine,
        outage_ms: now - this.startedAt,
      },
      `${this.what} still failing; retrying with backoff`,
    );
    this.lastLineAt = now;
    this.failuresSinceLastLine = 0;
  }

  /** The work succeeded: ends the outage (one line if there was one). */
  recovered(fields: Record<string, unknown> = {}): void {
    if (this.failures === 0) return;
    this.logger.log({ ...fields, failures: this.failures, outage_ms: this.now() - this.startedAt }, `${this.what} works again`);
    this.failures = 0;
    this.failuresSinceLastLine = 0;
  }
}
