import type { RunCallbackBody, LedgerRecord, RunKind, UsageObject } from '@waggle/contracts';

/** A run's record as this replica holds it or the ledger answers it (an RPC lookup has no usage or model of its own). */
export type RunRecord = Pick<LedgerRecord, 'status' | 'data' | 'ended_at'> & Partial<Pick<LedgerRecord, 'usage' | 'model'>>;

/** What a finished run's callback is built from: its record in a terminal state. */
export type FinishedRun = RunRecord & { status: 'completed' | 'failed' | 'cancelled' };

export const isFinishedRun = (record: RunRecord | null | undefined): record is FinishedRun =>
  record?.status === 'completed' || record?.status === 'failed' || record?.status === 'cancelled';

/** decisions.md, run cancellation: the `data` of a cancelled run's record and callback. */
export const CANCELLED_RUN_DATA = { reason: 'cancelled' } as const;

/** The `error` of a failed run whose record names none. */
const UNNAMED_FAILURE: Record<RunKind, string> = {
  prompt: 'The run failed',
  agent: 'The run failed',
  workflow: 'The workflow run failed',
};

/**
 * The callback body of a finished run of any kind, from its ledger record: `<kind>.completed`,
 * `<kind>.failed` or `<kind>.cancelled` (wire format: docs/guide/webhooks-and-callbacks.md and
 * workflows.md). A prompt's or an agent's answer carries its response, usage and model (an
 * agent's record keeps its model and usage in `data`, as the ledger's lookup answers them); a
 * workflow's, its output. A failure carries its error and code; a cancel only the reason,
 * whatever partial usage the record holds.
 */
export function runCallbackBody(kind: RunKind, requestId: string, run: FinishedRun): RunCallbackBody {
  const data = run.data ?? {};
  if (run.status === 'cancelled') return { event_type: `${kind}.cancelled`, request_id: requestId, data: { ...CANCELLED_RUN_DATA } };
  if (run.status === 'completed') {
    if (kind === 'workflow') return { event_type: 'workflow.completed', request_id: requestId, data: { output: data.output ?? '' } };
    return {
      event_type: `${kind}.completed`,
      request_id: requestId,
      data: {
        response: String(data.response ?? ''),
        usage: ((data.usage ?? run.usage ?? null) as UsageObject | null) ?? null,
        model: String(data.model ?? run.model ?? ''),
      },
    };
  }
  return {
    event_type: `${kind}.failed`,
    request_id: requestId,
    data: { error: String(data.error ?? UNNAMED_FAILURE[kind]), error_code: String(data.error_code ?? 'internal_server_error') },
  };
}
