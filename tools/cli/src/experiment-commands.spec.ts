import type { ExperimentCandidateSummary, ExperimentRunView } from '@waggle/contracts';
import { gateFailure, summaryRow } from './experiment-commands';

const summary = (candidate: string, met: boolean): ExperimentCandidateSummary => ({
  candidate,
  rows: 3,
  passed: met ? 3 : 2,
  errors: 0,
  pass_rate: met ? 1 : 0.666667,
  met_threshold: met,
  mean_scores: {},
  latency_ms: { p50: 10, p95: 20 },
  tokens: { input: 1, output: 1, total: 2 },
  cost_micros: 1_500,
});
const run = (status: ExperimentRunView['status'], summaries: ExperimentCandidateSummary[]) =>
  ({ status, min_pass_rate: 1, summary: summaries, error: null }) as unknown as ExperimentRunView;

describe('experiment run --wait', () => {
  it('passes a completed run whose every candidate met the threshold, and names what failed otherwise', () => {
    expect(gateFailure(run('completed', [summary('a', true), summary('b', true)]))).toBeNull();
    expect(gateFailure(run('completed', [summary('a', true), summary('b', false)]))).toBe('below min_pass_rate 1: b');
    expect(gateFailure(run('cancelled', [summary('a', true)]))).toBe('the run ended cancelled');
  });

  it('prints a candidate with its rate, counts, latency, cost and its change against the baseline', () => {
    const versus = {
      ...summary('b', false),
      vs_baseline: {
        baseline: 'a',
        pass_rate_delta: -0.333333,
        mean_score_deltas: {},
        latency_p50_delta_ms: 0,
        cost_micros_delta: 0,
        regressed_rows: ['r2'],
      },
    };
    expect(summaryRow(versus)).toEqual({
      candidate: 'b',
      pass_rate: '66.7%',
      passed: '2/3',
      errors: '0',
      'p50/p95_ms': '10/20',
      cost: '$0.001500',
      vs_baseline: '-33.3% pass, 1 regressed',
      threshold: 'missed',
    });
    expect(summaryRow(summary('a', true)).vs_baseline).toBe('-');
  });
});
