/** The shapes of the private dataset and experiment-run routes that the console reads. */

export interface Dataset {
  id: string;
  name: string;
  description: string | null;
  latest_version: number | null;
  created_at: string;
  updated_at: string;
}

export interface DatasetVersion {
  dataset_id: string;
  version: number;
  base_version: number | null;
  row_count: number;
  created_at: string;
}

export interface DatasetDetail extends Dataset {
  versions: DatasetVersion[];
}

export interface DatasetRow {
  id: string;
  inputs: Record<string, unknown>;
  expected_output: unknown;
  metadata: Record<string, unknown>;
}

export interface DatasetRowsPage {
  rows: DatasetRow[];
  total: number;
  next_offset: number | null;
}

export interface ExperimentCandidate {
  name: string;
  active: boolean;
  inline: boolean;
  deployment: string | null;
  variant: string | null;
  label: string | null;
  version: number | null;
  model: string;
}

export interface CandidateSummary {
  candidate: string;
  rows: number;
  passed: number;
  errors: number;
  pass_rate: number;
  met_threshold: boolean;
  mean_scores: Record<string, number>;
  latency_ms: { p50: number | null; p95: number | null };
  tokens: { input: number; output: number; total: number };
  cost_micros: number;
  vs_baseline?: {
    baseline: string;
    pass_rate_delta: number;
    mean_score_deltas: Record<string, number>;
    latency_p50_delta_ms: number | null;
    cost_micros_delta: number;
    regressed_rows: string[];
  };
}

export type ExperimentRunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface ExperimentRun {
  id: string;
  name: string | null;
  status: ExperimentRunStatus;
  dataset_id: string;
  dataset_version: number;
  candidates: ExperimentCandidate[];
  evaluators: Array<{ type: string; name?: string }>;
  baseline: string | null;
  min_pass_rate: number;
  counts: { cells: number; pending: number; succeeded: number; errored: number };
  summary: CandidateSummary[];
  error: { code: string; message: string } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface Evaluation {
  evaluator: string;
  type: string;
  score: number;
  passed: boolean;
  reason: string;
}

export interface ExperimentCell {
  id: string;
  row_id: string;
  candidate: string;
  status: 'pending' | 'succeeded' | 'errored';
  request_id: string;
  output: unknown;
  error: { code: string; message: string } | null;
  latency_ms: number | null;
  cost_micros: number | null;
  evaluations: Evaluation[];
  passed: boolean;
}

export interface ExperimentCellsPage {
  cells: ExperimentCell[];
  total: number;
  next_offset: number | null;
}

/** Rows per page of a dataset version and of a run's grid. */
export const ROWS_PAGE_SIZE = 20;

export const datasetRowsPath = (datasetId: string, version: number, page: number) =>
  `/v1/private/datasets/${encodeURIComponent(datasetId)}/versions/${version}/rows?limit=${ROWS_PAGE_SIZE}&offset=${page * ROWS_PAGE_SIZE}`;

/**
 * The cells of one page of the grid: cells come in row order then candidate order, one per row and
 * active candidate, so a page of rows is a contiguous run of `rows × active candidates` cells.
 */
export function gridCellsPath(runId: string, page: number, activeCandidates: number): string {
  const perPage = ROWS_PAGE_SIZE * Math.max(activeCandidates, 1);
  return `/v1/private/experiment_runs/${encodeURIComponent(runId)}/cells?limit=${perPage}&offset=${page * perPage}`;
}

/** A run still being worked on (the screen follows it until it ends). */
export const isRunning = (status: ExperimentRunStatus) => status === 'queued' || status === 'running';

/** A value of a row or an output as one line of text: strings as they are, anything else as JSON. */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface GridRow {
  row: DatasetRow | null;
  rowId: string;
  cells: Array<{ candidate: string; cell: ExperimentCell | null; regressed: boolean }>;
}

/**
 * The results grid of a page: one line per row (its dataset row when read), one column per active
 * candidate; a cell is `regressed` when its row passed on the baseline and does not pass here
 * (the candidate summary's `vs_baseline.regressed_rows`).
 */
export function gridOf(run: ExperimentRun, cells: ExperimentCell[], rows: DatasetRow[]): GridRow[] {
  const candidates = run.candidates.filter((candidate) => candidate.active).map((candidate) => candidate.name);
  const regressed = new Map(run.summary.map((summary) => [summary.candidate, new Set(summary.vs_baseline?.regressed_rows ?? [])]));
  const rowIds: string[] = [];
  const byRow = new Map<string, Map<string, ExperimentCell>>();
  for (const cell of cells) {
    if (!byRow.has(cell.row_id)) {
      byRow.set(cell.row_id, new Map());
      rowIds.push(cell.row_id);
    }
    byRow.get(cell.row_id)?.set(cell.candidate, cell);
  }
  const rowsById = new Map(rows.map((row) => [row.id, row]));
  return rowIds.map((rowId) => ({
    rowId,
    row: rowsById.get(rowId) ?? null,
    cells: candidates.map((candidate) => ({
      candidate,
      cell: byRow.get(rowId)?.get(candidate) ?? null,
      regressed: regressed.get(candidate)?.has(rowId) ?? false,
    })),
  }));
}

/** Runs to a page: the list route answers newest first, and `before` (a run id) the page after it. */
export const RUNS_PAGE_SIZE = 20;

/** The list route's path for one page: the newest runs, or those created before the run `before`. */
export function experimentRunsPath(before?: string): string {
  const query = new URLSearchParams({ limit: String(RUNS_PAGE_SIZE) });
  if (before !== undefined) query.set('before', before);
  return `/v1/private/experiment_runs?${query.toString()}`;
}
