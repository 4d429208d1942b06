// A workflow run's row as the API, the request ledger and a sync caller see it.
import type { LedgerRecord, WorkflowInvokeResponse, WorkflowRunView } from '@waggle/contracts';
import { isErrorCode, isErrorMessageId, WaggleException, type ErrorDetail, type NestedMessage } from '@waggle/errors';
import { CANCELLED_RUN_DATA, runCancelledError } from '@waggle/runs';
import type { WorkflowRunRow } from './workflow-runs.repository';

/** Whether the run ended: nothing leaves a terminal state. */
export const isTerminalRun = (row: WorkflowRunRow): boolean =>
  row.run_status === 'completed' || row.run_status === 'failed' || row.run_status === 'cancelled';

/** The run's failure as a client sees it: the failing step's catalog code and message, with the request id. */
export function runFailure(row: WorkflowRunRow): WaggleException {
  const code = isErrorCode(row.error_code) ? row.error_code : 'internal_server_error';
  // Runs stored before `error_detail` (or failed by a refusal with only a catalog text, or with an id this
  // version does not know) replay the English text.
  const text: ErrorDetail =
    row.error_message === null
      ? { detail: 'workflow_run_failed' }
      : {
          detail: 'workflow_step_failed',
          params: { reason: isErrorMessageId(row.error_detail?.detail) ? (row.error_detail as NestedMessage) : row.error_message },
        };
  return new WaggleException(code, { ...text, extra: { request_id: row.id } });
}

/** A finished sync run's answer: its output, its failure, or 409 run_cancelled. */
export function syncAnswerOf(row: WorkflowRunRow): WorkflowInvokeResponse {
  if (row.run_status === 'cancelled') throw runCancelledError(row.id);
  if (row.run_status !== 'completed') throw runFailure(row);
  return { request_id: row.id, run_status: 'completed', output: row.output_content ?? '' };
}

export function toRunView(row: WorkflowRunRow): WorkflowRunView {
  return {
    id: row.id,
    token: row.id,
    run_status: row.run_status,
    run_async: row.run_async,
    start_inputs: row.start_inputs,
    output_content: row.output_content,
    error_message: row.error_message,
    started_at: row.started_at?.toISOString() ?? null,
    ended_at: row.ended_at?.toISOString() ?? null,
    duration: row.started_at && row.ended_at ? Math.max(0, row.ended_at.getTime() - row.started_at.getTime()) / 1000 : null,
    total_tokens: row.total_tokens,
    async_webhook_url: row.callback_url,
  };
}

/** The run's request-ledger record in its current state (its `data` is what its callback body is built from: runCallbackBody). */
export function ledgerRecordOf(row: WorkflowRunRow): LedgerRecord {
  const ended = row.ended_at?.toISOString() ?? null;
  return {
    request_id: row.id,
    workspace_id: row.workspace_id,
    request_type: 'workflow',
    requestable_type: 'workflow_deployment',
    requestable_id: row.deployment_id,
    deployment: row.deployment_name,
    variant: row.variant_name,
    variant_id: row.variant_id,
    version_id: row.version_id,
    version: row.version,
    model: null,
    status: row.run_status,
    message: null,
    metadata: row.metadata,
    user: row.user_label,
    generated_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    ended_at: ended,
    duration_ms: row.started_at && row.ended_at ? row.ended_at.getTime() - row.started_at.getTime() : null,
    usage: isTerminalRun(row) ? { total_tokens: row.total_tokens, steps_executed: row.steps_executed } : null,
    surface: row.surface,
    // The workflow's own model calls (an agent step's are its agent run's record's); raw SQL reads bigint as text.
    cost_micros: row.cost_micros === null ? null : Number(row.cost_micros),
    price_version: row.price_version,
    credentials: row.credentials,
    data:
      row.run_status === 'completed'
        ? { output: row.output_content }
        : row.run_status === 'failed'
          ? { error: row.error_message, error_code: row.error_code }
          : row.run_status === 'cancelled'
            ? { ...CANCELLED_RUN_DATA }
            : null,
  };
}
