import type { DatasetRowView, DatasetVersionView, EvaluationResult, EvaluatorSpec } from '@waggle/contracts';

/**
 * What a run reads of the datasets (their part owns them): a version, and its rows in order.
 * Both answer nothing for another workspace's dataset.
 */
export abstract class ExperimentDatasets {
  abstract version(workspaceId: string, datasetId: string, version: number): Promise<DatasetVersionView | null>;
  abstract rows(workspaceId: string, datasetId: string, version: number, page: { offset: number; limit: number }): Promise<DatasetRowView[]>;
}

/** One cell's prompt run as the evaluators read it. */
export interface EvaluatedCell {
  /** The run's response: text, or the parsed JSON of a structured output. */
  output: unknown;
  /** The response as the model wrote it. */
  text: string;
  latencyMs: number;
  costMicros: number | null;
  /** The row it ran. */
  row: DatasetRowView;
  workspaceId: string;
  /** The experiment run, for what the evaluators record of their own calls (an LLM judge's usage). */
  runId: string;
  requestId: string;
}

/** What a run asks of its evaluators (their part owns them): a check of the specs when the run is created, then a verdict per cell. */
export abstract class ExperimentEvaluators {
  /** Refuses invalid specs (422 validation_error naming each); answers them as the run keeps them. */
  abstract check(specs: readonly EvaluatorSpec[]): EvaluatorSpec[] | Promise<EvaluatorSpec[]>;
  abstract evaluate(specs: readonly EvaluatorSpec[], cell: EvaluatedCell): Promise<EvaluationResult[]>;
}
