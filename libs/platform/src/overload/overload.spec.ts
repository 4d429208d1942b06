import { Admission, shedReason, timeWeightedDelayMs } from './overload';

describe('shedReason', () => {
  const limits = { maxInFlight: 3, maxEventLoopDelayMs: 200 };

  it('admits below both bounds', () => {
    expect(shedReason(0, 0, limits)).toBeUndefined();
    expect(shedReason(2, 200, limits)).toBeUndefined();
  });

  it('refuses once the requests in flight reach the bound, whatever the delay', () => {
    expect(shedReason(3, 0, limits)).toBe('in_flight');
    expect(shedReason(4, 500, limits)).toBe('in_flight');
  });

  it('refuses while the event loop lags past its limit', () => {
    expect(shedReason(0, 200.5, limits)).toBe('event_loop_delay');
  });

  it('never looks at the delay when its limit is 0', () => {
    expect(shedReason(0, 60_000, { maxInFlight: 3, maxEventLoopDelayMs: 0 })).toBeUndefined();
  });
});

describe('timeWeightedDelayMs', () => {
  const ms = 1e6;
  /** A reading of the given gaps (ms), as perf_hooks' histogram summarises them. */
  const reading = (gaps: number[]) => {
    const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
    const variance = gaps.reduce((sum, gap) => sum + (gap - mean) ** 2, 0) / gaps.length;
    return { count: gaps.length, meanNs: mean * ms, stddevNs: Math.sqrt(variance) * ms };
  };
  const tens = (n: number) => Array.from({ length: n }, () => 10);

  it('is 0 for a loop that turns on time, and with no readings or empty ones', () => {
    expect(timeWeightedDelayMs([reading(tens(25))])).toBeCloseTo(0);
    expect(timeWeightedDelayMs([])).toBe(0);
    expect(timeWeightedDelayMs([{ count: 0, meanNs: Number.NaN, stddevNs: Number.NaN }])).toBe(0);
  });

  it('is the lag of every turn when all turns lag alike', () => {
    expect(timeWeightedDelayMs([reading([110, 110]), reading([110, 110])])).toBeCloseTo(100);
  });

  it('weighs turns by their length, over every reading: one long turn among many short ones still counts', () => {
    const readings = [reading(tens(25)), reading([...tens(15), 100]), reading(tens(25))];
    const gaps = [...tens(65), 100];
    const expected = gaps.reduce((sum, gap) => sum + gap * gap, 0) / gaps.reduce((sum, gap) => sum + gap, 0) - 10;
    expect(timeWeightedDelayMs(readings)).toBeCloseTo(expected);
    // The plain mean less the resolution (1.4 ms) would all but hide it.
    expect(expected).toBeGreaterThan(10);
  });

  it('lets one long task pass where a loop that stays behind is caught', () => {
    const oneBlock = [reading([300]), reading(tens(25)), reading(tens(25)), reading(tens(25))];
    const behind = Array.from({ length: 4 }, () => reading([250]));
    expect(timeWeightedDelayMs(oneBlock)).toBeLessThan(200);
    expect(timeWeightedDelayMs(behind)).toBeGreaterThan(200);
  });
});

describe('Admission', () => {
  it('counts what it admits, refuses past the bound, and admits again once one leaves', () => {
    const admission = new Admission('http', { maxInFlight: 2, maxEventLoopDelayMs: 0 });
    expect([admission.enter(), admission.enter()]).toEqual([undefined, undefined]);
    expect(admission.enter()).toBe('in_flight');
    expect(admission.inFlight).toBe(2);
    admission.leave();
    expect(admission.inFlight).toBe(1);
    expect(admission.enter()).toBeUndefined();
    expect(admission.inFlight).toBe(2);
    admission.close();
  });
});
