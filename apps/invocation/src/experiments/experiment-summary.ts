import type { EvaluationResult, ExperimentCandidateSummary, ExperimentCellStatus } from '@waggle/contracts';

/** What a candidate's summary reads of one cell. */
export interface SummaryCell {
  rowId: string;
  candidate: string;
  status: ExperimentCellStatus;
  latencyMs: number | null;
  usage: Record<string, unknown> | null;
  costMicros: number | null;
  evaluations: EvaluationResult[];
  passed: boolean;
}

export interface SummaryRun {
  /** The active candidates, in the run's order. */
  candidates: string[];
  baseline: string | null;
  minPassRate: number;
}

/**
 * Each active candidate's results (the spec's decisions: results), and against the baseline the
 * deltas and the rows that regressed (passed on the baseline, do not pass here). Pure: computed
 * when a run ends (and stored, for the release gate) and while it runs (from the cells so far).
 */
export function summarize(run: SummaryRun, cells: readonly SummaryCell[]): ExperimentCandidateSummary[] {
  const byCandidate = new Map<string, SummaryCell[]>(run.candidates.map((name) => [name, []]));
  for (const cell of cells) byCandidate.get(cell.candidate)?.push(cell);
  const own = new Map(run.candidates.map((name) => [name, candidateSummary(name, byCandidate.get(name) ?? [], run.minPassRate)]));
  const baseline = run.baseline === null ? undefined : own.get(run.baseline);
  if (!baseline) return [...own.values()];
  const passedOnBaseline = new Set((byCandidate.get(baseline.candidate) ?? []).filter((cell) => cell.passed).map((cell) => cell.rowId));
  return [...own.values()].map((summary) => {
    if (summary === baseline) return summary;
    const passedHere = new Set((byCandidate.get(summary.candidate) ?? []).filter((cell) => cell.passed).map((cell) => cell.rowId));
    return {
      ...summary,
      vs_baseline: {
        baseline: baseline.candidate,
        pass_rate_delta: round(rate(summary) - rate(baseline)),
        mean_score_deltas: Object.fromEntries(
          Object.entries(summary.mean_scores)
            .filter(([name]) => name in baseline.mean_scores)
            .map(([name, score]) => [name, round(score - baseline.mean_scores[name])]),
        ),
        latency_p50_delta_ms:
          summary.latency_ms.p50 === null || baseline.latency_ms.p50 === null ? null : summary.latency_ms.p50 - baseline.latency_ms.p50,
        cost_micros_delta: summary.cost_micros - baseline.cost_micros,
        regressed_rows: [...passedOnBaseline].filter((rowId) => !passedHere.has(rowId)),
      },
    };
  });
}

function candidateSummary(candidate: string, cells: readonly SummaryCell[], minPassRate: number): ExperimentCandidateSummary {
  const rows = cells.length;
  const passed = cells.filter((cell) => cell.passed).length;
  const passRate = rows === 0 ? 0 : round(passed / rows);
  const scores = new Map<string, number[]>();
  for (const cell of cells)
    for (const evaluation of cell.evaluations)
      scores.set(evaluation.evaluator, [...(scores.get(evaluation.evaluator) ?? []), evaluation.score]);
  const latencies = cells
    .filter((cell) => cell.status === 'succeeded' && cell.latencyMs !== null)
    .map((cell) => cell.latencyMs as number)
    .sort((a, b) => a - b);
  const tokens = { input: 0, output: 0, total: 0 };
  for (const cell of cells) {
    const usage = tokenCounts(cell.usage);
    tokens.input += usage.input;
    tokens.output += usage.output;
    tokens.total += usage.total;
  }
  return {
    candidate,
    rows,
    passed,
    errors: cells.filter((cell) => cell.status === 'errored').length,
    pass_rate: passRate,
    met_threshold: rows > 0 && passRate >= minPassRate,
    mean_scores: Object.fromEntries(
      [...scores].map(([name, values]) => [name, round(values.reduce((sum, v) => sum + v, 0) / values.length)]),
    ),
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    tokens,
    cost_micros: cells.reduce((sum, cell) => sum + (cell.costMicros ?? 0), 0),
  };
}

/** The unrounded pass rate, so a delta is rounded once. */
function rate(summary: ExperimentCandidateSummary): number {
  return summary.rows === 0 ? 0 : summary.passed / summary.rows;
}

/** Nearest-rank percentile of sorted values; null when there are none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/** A prompt run's usage object (the spec's): prompt, completion and total tokens. */
function tokenCounts(usage: Record<string, unknown> | null): { input: number; output: number; total: number } {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const nested = (key: string) => {
    const part = usage?.[key];
    return typeof part === 'object' && part !== null ? count((part as Record<string, unknown>).total_tokens) : 0;
  };
  return { input: nested('prompt_tokens'), output: nested('completion_tokens'), total: count(usage?.total_tokens) };
}

/** Rates and scores to 6 decimals, so a summary compares equal however its sums were ordered. */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
