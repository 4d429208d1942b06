import { MIN_BAR_PERCENT, waterfallLayout, type WaterfallStep } from './waterfall';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const step = (id: string, start: number, end: number | null, overrides: Partial<WaterfallStep> = {}): WaterfallStep => ({
  step_key: id,
  step_id: id,
  step_type: 'template',
  iteration: null,
  status: end === null ? 'running' : 'completed',
  started_at: at(start),
  ended_at: end === null ? null : at(end),
  duration_ms: end === null ? null : end - start,
  ...overrides,
});

describe('waterfallLayout', () => {
  it('puts each step on the run’s time axis, in the order given', () => {
    const layout = waterfallLayout([step('a', 0, 250), step('b', 250, 750), step('c', 750, 1000)], at(0), T0 + 5_000);
    expect(layout.totalMs).toBe(1000);
    expect(
      layout.bars.map(({ label, offsetPercent, widthPercent, startMs, durationMs }) => [
        label,
        offsetPercent,
        widthPercent,
        startMs,
        durationMs,
      ]),
    ).toEqual([
      ['a', 0, 25, 0, 250],
      ['b', 25, 50, 250, 500],
      ['c', 75, 25, 750, 250],
    ]);
  });

  it('starts the axis at the run’s start when it is earlier than the first step', () => {
    const layout = waterfallLayout([step('a', 500, 1000)], at(0), T0);
    expect([layout.totalMs, layout.bars[0].offsetPercent, layout.bars[0].widthPercent]).toEqual([1000, 50, 50]);
  });

  it('draws a running step up to now, without a duration', () => {
    const layout = waterfallLayout([step('a', 0, 100), step('b', 100, null)], at(0), T0 + 400);
    expect(layout.totalMs).toBe(400);
    expect(layout.bars[1]).toEqual(expect.objectContaining({ offsetPercent: 25, widthPercent: 75, durationMs: null, status: 'running' }));
  });

  it('keeps an instant step visible and inside the axis, and names loop iterations from 1', () => {
    const layout = waterfallLayout(
      [step('each', 0, 0, { iteration: 0, step_key: 'each/0' }), step('each', 0, 0, { iteration: 1, step_key: 'each/1' })],
      null,
      T0,
    );
    expect(layout.totalMs).toBe(1);
    expect(layout.bars.map((bar) => [bar.key, bar.label, bar.widthPercent])).toEqual([
      ['each/0', 'each #1', MIN_BAR_PERCENT],
      ['each/1', 'each #2', MIN_BAR_PERCENT],
    ]);
    const late = waterfallLayout([step('a', 0, 1000), step('b', 1000, 1000)], null, T0).bars[1];
    expect(late.offsetPercent + late.widthPercent).toBeLessThanOrEqual(100);
    expect(late.widthPercent).toBe(MIN_BAR_PERCENT);
  });

  it('answers no bars for no steps', () => {
    expect(waterfallLayout([], at(0), T0)).toEqual({ totalMs: 1, bars: [] });
  });
});
