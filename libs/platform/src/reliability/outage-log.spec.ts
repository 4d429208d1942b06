import { cappedBackoffMs, OutageLog } from './outage-log';

describe('cappedBackoffMs', () => {
  it('doubles from the base and never passes the cap', () => {
    const settings = { baseMs: 100, maxMs: 1_000 };
    expect([1, 2, 3, 4, 5, 6, 1_000].map((retry) => cappedBackoffMs(retry, settings))).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
    expect(cappedBackoffMs(0, settings)).toBe(100);
  });
});

describe('OutageLog', () => {
  function logged() {
    const lines: Array<{ level: 'warn' | 'log'; fields: Record<string, unknown>; message: string }> = [];
    return {
      lines,
      logger: {
        warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'warn', fields, message }),
        log: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'log', fields, message }),
      },
    };
  }

  it('logs the first failure, then one summary per interval with the count, then the recovery', () => {
    const { lines, logger } = logged();
    let now = 1_000_000;
    const outage = new OutageLog(logger, 'publishing ledger records', 30_000, () => now);
    const error = new Error('connect ECONNREFUSED');

    for (let failure = 0; failure < 601; failure += 1) {
      outage.failed(error, { records: 3 });
      now += 50;
    }
    // 601 failures 50 ms apart: the first line, and one summary once 30 s had passed.
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['warn', expect.stringMatching(/^publishing ledger records failed/)],
      ['warn', 'publishing ledger records still failing; retrying with backoff'],
    ]);
    expect(lines[0]?.fields).toEqual({ records: 3, err: error });
    expect(lines[1]?.fields).toMatchObject({ records: 3, failures: 601, failures_since_last_line: 600, outage_ms: 30_000 });
    expect(outage.ongoing).toBe(true);

    outage.recovered();
    expect(lines.at(-1)).toEqual({
      level: 'log',
      fields: { failures: 601, outage_ms: 30_050 },
      message: 'publishing ledger records works again',
    });
    expect(outage.ongoing).toBe(false);
    outage.recovered();
    expect(lines).toHaveLength(3);

    // The next outage starts over with a line of its own.
    outage.failed(error);
    expect(lines).toHaveLength(4);
  });
});
