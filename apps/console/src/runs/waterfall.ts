/**
 * The Run detail's waterfall: a workflow run's step records (`GET /v1/private/workflow_runs/{id}/steps`,
 * in execution order) laid out on one time axis, each bar from its step's start to its end (to
 * `now` while it runs), as percentages of the span from the run's start to its last step's end.
 */
export interface WaterfallStep {
  step_key: string;
  step_id: string;
  step_type: string;
  iteration: number | null;
  status: string;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
}

export interface WaterfallBar {
  key: string;
  /** The step's id, and its iteration (from 1) for a step inside a loop. */
  label: string;
  status: string;
  /** Where the bar starts, and how wide it is, in percent of the axis. */
  offsetPercent: number;
  widthPercent: number;
  /** Its start after the axis's start, and its duration (null while it runs), in ms. */
  startMs: number;
  durationMs: number | null;
}

export interface Waterfall {
  /** The axis's length in ms (at least 1). */
  totalMs: number;
  bars: WaterfallBar[];
}

/** The narrowest bar drawn, in percent: an instant step still shows. */
export const MIN_BAR_PERCENT = 0.5;

const round = (value: number) => Math.round(value * 100) / 100;

export function waterfallLayout(steps: readonly WaterfallStep[], runStartedAt: string | null, now: number): Waterfall {
  const starts = steps.map((step) => Date.parse(step.started_at));
  const ends = steps.map((step, index) => {
    const ended = step.ended_at === null ? Number.NaN : Date.parse(step.ended_at);
    return Number.isNaN(ended) ? Math.max(now, starts[index]) : ended;
  });
  const runStart = runStartedAt === null ? Number.NaN : Date.parse(runStartedAt);
  const origin = Math.min(...(Number.isNaN(runStart) ? [] : [runStart]), ...starts.filter((start) => !Number.isNaN(start)));
  if (!Number.isFinite(origin)) return { totalMs: 1, bars: [] };
  const totalMs = Math.max(1, ...ends.map((end) => end - origin));
  const bars = steps.map((step, index) => {
    const startMs = Number.isNaN(starts[index]) ? 0 : starts[index] - origin;
    const offsetPercent = Math.min(100 - MIN_BAR_PERCENT, (startMs / totalMs) * 100);
    const widthPercent = Math.min(100 - offsetPercent, Math.max(MIN_BAR_PERCENT, ((ends[index] - origin - startMs) / totalMs) * 100));
    return {
      key: step.step_key,
      label: step.iteration === null ? step.step_id : `${step.step_id} #${step.iteration + 1}`,
      status: step.status,
      offsetPercent: round(offsetPercent),
      widthPercent: round(widthPercent),
      startMs,
      durationMs: step.ended_at === null ? null : (step.duration_ms ?? ends[index] - starts[index]),
    };
  });
  return { totalMs, bars };
}
