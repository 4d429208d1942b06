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

  it('is 0 for a loop that turns on time, and with no samples', () => {
    expect(timeWeightedDelayMs(10 * ms, 0)).toBe(0);
    expect(timeWeightedDelayMs(Number.NaN, Number.NaN)).toBe(0);
    expect(timeWeightedDelayMs(0, 0)).toBe(0);
  });

  it('is the lag of every turn when all turns lag alike', () => {
    expect(timeWeightedDelayMs(110 * ms, 0)).toBeCloseTo(100);
  });

  it('weighs turns by their length: one long turn among many short ones still counts', () => {
    // 40 gaps of 10 ms and one of 100 ms: the plain mean (12.2 ms) would hide the long one.
    const gaps = [...Array.from({ length: 40 }, () => 10), 100];
    const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
    const stddev = Math.sqrt(gaps.reduce((sum, gap) => sum + (gap - mean) ** 2, 0) / gaps.length);
    const weighted = gaps.reduce((sum, gap) => sum + gap * gap, 0) / gaps.reduce((sum, gap) => sum + gap, 0);
    expect(timeWeightedDelayMs(mean * ms, stddev * ms)).toBeCloseTo(weighted - 10);
    expect(weighted - 10).toBeGreaterThan(mean);
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
