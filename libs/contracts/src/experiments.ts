import type { FlatMetadata } from './flat-metadata';

/**
 * The shared vocabulary of datasets, experiment runs, evaluators and releases (the spec's
 * decisions on experiments and releases): the wire shapes every part
 * answers with and the limits they check. The request DTOs (class-validator) live beside the
 * patterns of the part that receives them.
 */

/** A dataset version holds at most this many rows (`experiment_dataset_row_limit_exceeded`). */
export const DATASET_ROW_LIMIT = 10_000;
/** One row's JSON over this many bytes answers 413 `validation_error`. */
export const DATASET_ROW_MAX_BYTES = 256 * 1024;
/** One upload (a version's body, an import) over this many bytes answers 413 `validation_error`. */
export const DATASET_UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
/** Cells (rows × active candidates) a run may have unless the plan says otherwise (`experiment_run_result_limit_exceeded`). */
export const EXPERIMENT_CELL_LIMIT_DEFAULT = 20_000;
/** Dataset names, like deployment names. */
export const DATASET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** One row as a client gives it. `expected_output` is text or any JSON value. */
export interface DatasetRowInput {
  inputs: Record<string, unknown>;
  expected_output?: unknown;
  metadata?: FlatMetadata;
}

/**
 * One row as stored: its `id` is given when the row is first added and kept by every later
 * version made from it (a base version's rows keep their ids; `update` and `remove` name them),
 * so results compare the same row across versions and runs.
 */
export interface DatasetRowView {
  id: string;
  inputs: Record<string, unknown>;
  expected_output: unknown;
  metadata: FlatMetadata;
}

export interface DatasetView {
  id: string;
  name: string;
  description: string | null;
  /** The newest version's number; null before the first version. */
  latest_version: number | null;
  created_at: string;
  updated_at: string;
}

export interface DatasetVersionView {
  dataset_id: string;
  version: number;
  /** The version it was made from (`base_version`), null when made from full rows or an import. */
  base_version: number | null;
  row_count: number;
  created_at: string;
}

// --- Evaluators -----------------------------------------------------------------------------

export const EVALUATOR_TYPES = [
  'exact',
  'contains',
  'regex',
  'json_schema',
  'similarity',
  'llm_judge',
  'max_latency_ms',
  'max_cost',
] as const;
export type EvaluatorType = (typeof EVALUATOR_TYPES)[number];

/**
 * One evaluator of an experiment run. `name` defaults to `type` (names are unique in a run).
 * `exact`, `contains`, `regex` and `similarity` compare the cell's output with `value` when
 * given, else with the row's `expected_output` (JSON values compared as canonical JSON text).
 */
export type EvaluatorSpec =
  | { type: 'exact'; name?: string; value?: unknown }
  | { type: 'contains'; name?: string; value?: string; case_sensitive?: boolean }
  /** `value` (or the expected output) is an RE2 pattern, matched anywhere in the output. */
  | { type: 'regex'; name?: string; value?: string }
  /** The output parsed as JSON must match the schema (draft 2020-12). */
  | { type: 'json_schema'; name?: string; schema: Record<string, unknown> }
  /** Cosine similarity of the embeddings of output and expected text; passes at or above `threshold` (0–1). */
  | { type: 'similarity'; name?: string; value?: string; threshold: number }
  /** A catalog chat model grades the output against the rubric: score 0–1, passed, reason. Its usage is recorded apart. */
  | { type: 'llm_judge'; name?: string; rubric: string; model: string }
  /** Passes when the cell's run took at most `value` ms. */
  | { type: 'max_latency_ms'; name?: string; value: number }
  /** Passes when the cell's run cost at most `value` USD. */
  | { type: 'max_cost'; name?: string; value: number };

/** What one evaluator said of one cell. A cell passes when every evaluator passed. */
export interface EvaluationResult {
  /** The evaluator's name (its `type` unless named). */
  evaluator: string;
  type: EvaluatorType;
  /** 0–1. */
  score: number;
  passed: boolean;
  reason: string;
}

// --- Experiment runs ------------------------------------------------------------------------

export const EXPERIMENT_RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type ExperimentRunStatus = (typeof EXPERIMENT_RUN_STATUSES)[number];
export const EXPERIMENT_CELL_STATUSES = ['pending', 'succeeded', 'errored'] as const;
export type ExperimentCellStatus = (typeof EXPERIMENT_CELL_STATUSES)[number];

/**
 * A candidate of a run, resolved when the run is created: which prompt version each cell of it
 * runs. `version_id` is null for an inline variant (not applied; `inline` true).
 */
export interface ExperimentCandidateView {
  name: string;
  active: boolean;
  inline: boolean;
  deployment: string | null;
  variant: string | null;
  /** The label the candidate named, when it named one. */
  label: string | null;
  version: number | null;
  version_id: string | null;
  model: string;
}

/** A candidate's results (the spec's decisions: results). */
export interface ExperimentCandidateSummary {
  candidate: string;
  rows: number;
  passed: number;
  errors: number;
  /** passed / rows (0 when no rows). */
  pass_rate: number;
  /** True when `pass_rate` ≥ the run's `min_pass_rate` (what the CLI's `--wait` and the release gate read). */
  met_threshold: boolean;
  /** Mean score per evaluator name, over the cells that were evaluated. */
  mean_scores: Record<string, number>;
  latency_ms: { p50: number | null; p95: number | null };
  tokens: { input: number; output: number; total: number };
  cost_micros: number;
  /** Against the baseline candidate (absent on the baseline itself and when the run has none). */
  vs_baseline?: {
    baseline: string;
    pass_rate_delta: number;
    mean_score_deltas: Record<string, number>;
    latency_p50_delta_ms: number | null;
    cost_micros_delta: number;
    /** Row ids that passed on the baseline and do not pass here. */
    regressed_rows: string[];
  };
}

export interface ExperimentRunView {
  id: string;
  name: string | null;
  status: ExperimentRunStatus;
  dataset_id: string;
  dataset_version: number;
  candidates: ExperimentCandidateView[];
  evaluators: EvaluatorSpec[];
  baseline: string | null;
  min_pass_rate: number;
  counts: { cells: number; pending: number; succeeded: number; errored: number };
  summary: ExperimentCandidateSummary[];
  /** Why a run `failed` (its catalog code and message); null otherwise. */
  error: { code: string; message: string } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface ExperimentCellView {
  id: string;
  row_id: string;
  candidate: string;
  status: ExperimentCellStatus;
  /** The cell's prompt run (its ledger record, `metadata.experiment_run_id`). */
  request_id: string;
  /** The run's response (text, or the parsed JSON of a structured output); null until it succeeded. */
  output: unknown;
  error: { code: string; message: string } | null;
  latency_ms: number | null;
  usage: Record<string, unknown> | null;
  cost_micros: number | null;
  evaluations: EvaluationResult[];
  /** Every evaluator passed (false for an errored cell). */
  passed: boolean;
}

// --- Releases -------------------------------------------------------------------------------

/** A label's name; `latest` is reserved (always the newest version) and `deployed` names the deployed pointer. */
export const RELEASE_LABEL_PATTERN = /^[a-z0-9_.-]{1,36}$/;
export const RESERVED_LABELS = ['latest', 'deployed'] as const;
/** The pointer a promotion without `label` moves: the variant's deployed version (what the contract's invoke serves). */
export const DEPLOYED_POINTER = 'deployed';

/** One move of a pointer, kept append-only. */
export interface ReleaseHistoryEntry {
  /** `deployed` or a label's name. */
  pointer: string;
  from: number | null;
  to: number | null;
  /** Who moved it: `api_key:<id>` from the private API, `operator` from the CLI. */
  actor: string;
  reason: string | null;
  experiment_run_id: string | null;
  /** True when the release gate was overridden. */
  override: boolean;
  at: string;
}

export interface ReleaseProtection {
  protected: boolean;
  /** The pass rate a gating run's candidate must reach (default 1.0). */
  min_pass_rate: number;
  /** How old a gating run may be (default 7). */
  max_age_days: number;
}

/** One target of a weighted split: another variant of the deployment (its deployed version) or a version of this one. */
export interface SplitTarget {
  variant?: string;
  version?: number;
  weight: number;
}

/** A split has at most this many targets, with integer weights summing to 100. */
export const SPLIT_MAX_TARGETS = 5;
/** Sticky assignment hashes (split id, user) into this many buckets. */
export const SPLIT_BUCKETS = 10_000;
