import type { StepRecordWrite } from '../../src/workflows/runs/workflow-runs.repository';

/** A step record as an attempt writes it (finished unless `extra` says otherwise). */
export function stepRecord(
  runId: string,
  key: string,
  stepId: string,
  type: string,
  extra: Partial<StepRecordWrite> = {},
): StepRecordWrite {
  return {
    run_id: runId,
    step_key: key,
    step_id: stepId,
    step_type: type,
    iteration: null,
    status: 'completed',
    inputs: {},
    output: null,
    error: null,
    error_code: null,
    tokens: 0,
    model_calls: 0,
    model_attempts: null,
    cost_picos: null,
    price_version: null,
    credentials: null,
    ended: true,
    duration_ms: 1,
    ended_ago_ms: 0,
    ...extra,
  };
}
