import type { EvaluationResult } from '@waggle/contracts';
import { percentile, summarize, type SummaryCell } from './experiment-summary';

const evaluation = (score: number): EvaluationResult => ({ evaluator: 'exact', type: 'exact', score, passed: score === 1, reason: '' });
const usage = (input: number, output: number) => ({
  prompt_tokens: { total_tokens: input, cached_tokens: 0 },
  completion_tokens: { total_tokens: output, reasoning_tokens: 0 },
  total_tokens: input + output,
});
const cell = (candidate: string, rowId: string, passed: boolean, latencyMs: number, costMicros: number): SummaryCell => ({
  rowId,
  candidate,
  status: 'succeeded',
  latencyMs,
  usage: usage(10, 5),
  costMicros,
  evaluations: [evaluation(passed ? 1 : 0)],
  passed,
});
const errored = (candidate: string, rowId: string): SummaryCell => ({
  rowId,
  candidate,
  status: 'errored',
  latencyMs: null,
  usage: null,
  costMicros: null,
  evaluations: [],
  passed: false,
});

describe('an experiment run summary', () => {
  it('counts, rates and compares each candidate with the baseline, naming the rows that regressed', () => {
    const cells = [
      cell('base', 'r1', true, 100, 10),
      cell('new', 'r1', true, 50, 4),
      cell('base', 'r2', true, 200, 10),
      cell('new', 'r2', false, 60, 4),
      cell('base', 'r3', false, 300, 10),
      errored('new', 'r3'),
    ];
    const [base, next] = summarize({ candidates: ['base', 'new'], baseline: 'base', minPassRate: 0.5 }, cells);
    expect(base).toEqual({
      candidate: 'base',
      rows: 3,
      passed: 2,
      errors: 0,
      pass_rate: 0.666667,
      met_threshold: true,
      mean_scores: { exact: 0.666667 },
      latency_ms: { p50: 200, p95: 300 },
      tokens: { input: 30, output: 15, total: 45 },
      cost_micros: 30,
    });
    expect(next).toEqual({
      candidate: 'new',
      rows: 3,
      passed: 1,
      errors: 1,
      pass_rate: 0.333333,
      met_threshold: false,
      mean_scores: { exact: 0.5 },
      latency_ms: { p50: 50, p95: 60 },
      tokens: { input: 20, output: 10, total: 30 },
      cost_micros: 8,
      vs_baseline: {
        baseline: 'base',
        pass_rate_delta: -0.333333,
        mean_score_deltas: { exact: -0.166667 },
        latency_p50_delta_ms: -150,
        cost_micros_delta: -22,
        regressed_rows: ['r2'],
      },
    });
  });

  it('gives a candidate without cells no rate, no latency and a missed threshold, and no comparison without a baseline', () => {
    const [only] = summarize({ candidates: ['solo'], baseline: null, minPassRate: 0 }, []);
    expect(only).toMatchObject({ rows: 0, pass_rate: 0, met_threshold: false, latency_ms: { p50: null, p95: null }, mean_scores: {} });
    expect(only).not.toHaveProperty('vs_baseline');
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
  });
});
