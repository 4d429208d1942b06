import type { CallbackDeliveryJob, LedgerRecord, RunKind } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { enqueue, type JobQueue } from '@waggle/platform';
import type { LedgerPublisher } from '../ledger/ledger-publisher';
import { runCallbackBody, type FinishedRun } from './run-callback-body';

/** Where a run's end is announced: the ledger stream, then the callback queue (both the app's, injected). */
export interface RunEndChannels {
  ledger: Pick<LedgerPublisher, 'save' | 'stored'>;
  callbacks: JobQueue<'callbacks'>;
}

/** Where an async run's result goes: the dispatcher signs it with the owner's secrets when it sends. */
export interface RunCallback {
  url: string;
  /** The callback's `webhook-id` and job id (deliveryIdFor the request id): one delivery however often the end is announced. */
  deliveryId: string;
  owner: CallbackDeliveryJob['owner'];
}

/** How the finished run is known to the announcer. */
export type RunResult =
  /** Its final record, held by the announcer (a workflow run's row): saved first, so announcing again publishes it again. */
  | { record: LedgerRecord & FinishedRun }
  /** Saved by the run's runner already (a trigger's run): read once the ledger stream holds it. */
  | { saved: () => Promise<FinishedRun> };

/** A finished run of any kind, to announce. */
export interface RunEnd {
  kind: RunKind;
  requestId: string;
  workspaceId: string;
  result: RunResult;
  /** Null: nothing to send (a sync run, a background invoke read from the ledger). */
  callback: RunCallback | null;
  /**
   * How many ledger batches the announcement waits for the record to be stored before it gives
   * up (LedgerPublisher.stored; its default when unset). Giving up throws: the caller's job settles
   * the run again later.
   */
  ledgerAttempts?: number;
}

/**
 * Announces a run's end, for every kind of run (prompts and agents through TriggerWorker, workflows
 * when a run settles), in one order:
 *
 * 1. the final record is saved (when the announcer holds it) and the ledger stream must hold it:
 *    while it does not (the ledger is away) this throws `upstream_request_failed` 503
 *    (`ledger_not_published`) and nothing else happens, so the job that settled the run runs
 *    again and announces again, and a callback never announces a result the ledger could lose
 *    (found by the chaos tier);
 * 2. the finished run is read (a trigger's from its runner's record);
 * 3. the callback, if any, is queued with the delivery id as its job id, so however often the end
 *    is announced it is delivered once. Its body is `runCallbackBody`'s, the one wire format.
 */
export async function announceRunEnd(channels: RunEndChannels, end: RunEnd): Promise<void> {
  const { ledger, callbacks } = channels;
  if ('record' in end.result) ledger.save(end.result.record);
  if (!(await ledger.stored(end.requestId, end.ledgerAttempts)))
    throw new WaggleException('upstream_request_failed', {
      status: 503,
      detail: 'ledger_not_published',
      params: { request_id: end.requestId },
    });
  const run = 'record' in end.result ? end.result.record : await end.result.saved();
  if (!end.callback) return;
  const body = runCallbackBody(end.kind, end.requestId, run);
  await enqueue(callbacks, end.callback.deliveryId, {
    delivery_id: end.callback.deliveryId,
    workspace_id: end.workspaceId,
    request_id: end.requestId,
    event_type: body.event_type,
    url: end.callback.url,
    body,
    owner: end.callback.owner,
    run_ended_at: run.ended_at ?? new Date().toISOString(),
  });
}
