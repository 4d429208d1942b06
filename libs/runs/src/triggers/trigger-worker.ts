import {
  acceptedTriggerRecord,
  type AcceptedRun,
  type CallbackBody,
  type CallbackDeliveryJob,
  type LedgerRecord,
  type QueueJobs,
  type TriggeredRun as AcceptedRunSubject,
  type UsageObject,
} from '@waggle/contracts';
import { Logger } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import type { Job } from 'bullmq';
import {
  enqueue,
  isTransientFailure,
  QueueWorker,
  type JobQueue,
  type QueueWorkerSettings,
  type RequestContextStore,
} from '@waggle/platform';
import type { RunCancelMarks } from '../cancellation/run-cancellation';
import { LEDGER_PUBLISH_ATTEMPTS, type LedgerPublisher } from '../ledger/ledger-publisher';

/** The queues of accepted webhook triggers: a run, then its callback. */
export type TriggerQueue = 'prompt-runs' | 'agent-runs';

/** A run's record as this replica holds it or the ledger answers it (an RPC lookup has no usage or model of its own). */
export type RunRecord = Pick<LedgerRecord, 'status' | 'data' | 'ended_at'> & Partial<Pick<LedgerRecord, 'usage' | 'model'>>;

/** What a finished run's callback is built from. */
export type FinishedRun = RunRecord & { status: 'completed' | 'failed' | 'cancelled' };

export const isFinishedRun = (record: RunRecord | null | undefined): record is FinishedRun =>
  record?.status === 'completed' || record?.status === 'failed' || record?.status === 'cancelled';

/** BullMQ states of a job no worker has taken: it can be finished where it waits. */
const WAITING_STATES: ReadonlySet<string> = new Set(['waiting', 'paused', 'delayed', 'prioritized', 'waiting-children']);

/** decisions.md, run cancellation: the `data` of a cancelled run's record and callback. */
export const CANCELLED_RUN_DATA = { reason: 'cancelled' } as const;

/** What is run: a prompt deployment or an agent (the callback's event types and the ledger record's kind). */
export type TriggeredKind = 'prompt' | 'agent';

/** The callback body of a finished run, from its record (an agent's keeps its model and usage in `data`). */
export function triggerCallbackBody(kind: TriggeredKind, requestId: string, run: FinishedRun): CallbackBody {
  const data = run.data ?? {};
  if (run.status === 'cancelled') return { event_type: `${kind}.cancelled`, request_id: requestId, data: { ...CANCELLED_RUN_DATA } };
  if (run.status === 'completed') {
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
    data: { error: String(data.error ?? 'The run failed'), error_code: String(data.error_code ?? 'internal_server_error') },
  };
}

/** What differs between the triggers of one kind and another: the callback's owner and id, and the run's record. */
export interface TriggeredRun {
  kind: TriggeredKind;
  /** The callback's `webhook-id` (deliveryIdFor). */
  deliveryId: string;
  owner: CallbackDeliveryJob['owner'];
  /** The record fields naming what ran. */
  record: Pick<LedgerRecord, 'requestable_type' | 'requestable_id' | 'variant_id' | 'version_id' | 'message'>;
}

const acceptanceLogger = new Logger('RunAcceptance');

/**
 * Accepts a run for later (a webhook trigger, a background invoke): queues it (idempotent by
 * request id; a queue that cannot take it answers 503), then records it in the ledger, where it
 * is from then on even while its runner is down.
 */
export async function acceptQueuedRun<Q extends TriggerQueue>(
  queue: JobQueue<Q>,
  ledger: LedgerPublisher,
  job: QueueJobs[Q],
  subject: AcceptedRunSubject,
  status: AcceptedRun['run_status'],
): Promise<AcceptedRun> {
  try {
    await enqueue(queue, job.request_id, job);
  } catch (error) {
    acceptanceLogger.error({ err: error, request_id: job.request_id }, 'a run could not be queued');
    throw new WaggleException('upstream_request_failed', { status: 503, detail: 'run_not_accepted' });
  }
  ledger.save(acceptedTriggerRecord(job, subject, status));
  return { request_id: job.request_id, run_status: status };
}

/**
 * Runs accepted webhook triggers and background invokes (a prompt's, an agent's) at least once, and announces each
 * run's result exactly once. The result is stored in the ledger stream before its callback is
 * queued, and the callback's job id is the delivery id, so a job run again never announces
 * twice. A job that finds its run already finished (this replica's record still waiting to be
 * published, else the ledger's) only queues the callback, so the model is not called again. A
 * run that fails for a reason is recorded failed and announced; an outage is waited out
 * (QueueWorker); an unexpected fault is tried again until the job's last attempt. A job
 * dead-lettered anyway leaves its run failed in the ledger, and its replay announces it. A run
 * cancelled (decisions.md, run cancellation) never starts from its job once marked (one Redis read
 * per job), and one still waiting is finished where it waits (cancelWaiting): recorded `cancelled`
 * and announced `*.cancelled`, exactly once like the others.
 */
export abstract class TriggerWorker<Q extends TriggerQueue> extends QueueWorker<Q> {
  protected constructor(
    settings: QueueWorkerSettings<Q>,
    private readonly ledger: LedgerPublisher,
    private readonly callbacks: JobQueue<'callbacks'>,
    private readonly runs: JobQueue<Q>,
    private readonly marks: RunCancelMarks,
  ) {
    super(settings);
  }

  /** Runs the trigger; its runner records the run in the ledger, failed runs included. */
  protected abstract execute(trigger: QueueJobs[Q]): Promise<unknown>;

  /** The run's stored record (the ledger's owner answers), or null when it has none yet. */
  protected abstract storedRecord(trigger: QueueJobs[Q]): Promise<RunRecord | null>;

  /** What the trigger runs, for its callback and its failed record. */
  protected abstract describe(trigger: QueueJobs[Q]): TriggeredRun;

  protected contextOf(trigger: QueueJobs[Q]): RequestContextStore {
    return { requestId: trigger.request_id, workspaceId: trigger.workspace_id };
  }

  protected async handle(job: Job<QueueJobs[Q]>): Promise<void> {
    const trigger = job.data;
    if (!(await this.finishedRun(trigger))) {
      if (await this.marks.isMarked(trigger.request_id)) this.recordEnded(trigger, 'cancelled', { ...CANCELLED_RUN_DATA });
      else await this.run(job);
    }
    await this.announce(trigger);
  }

  /**
   * Finishes a run whose job no worker has taken yet where it waits: the job is removed (BullMQ
   * refuses while a worker holds it), the run recorded `cancelled` and announced. False when there
   * is no such job or a worker has it (its holder stops it).
   */
  async cancelWaiting(workspaceId: string, requestId: string): Promise<boolean> {
    const job = (await this.runs.getJob(requestId)) as Job<QueueJobs[Q]> | undefined;
    if (job?.data.workspace_id !== workspaceId || !WAITING_STATES.has(await job.getState())) return false;
    try {
      await job.remove();
    } catch {
      return false;
    }
    const trigger = job.data;
    if (!(await this.finishedRun(trigger))) this.recordEnded(trigger, 'cancelled', { ...CANCELLED_RUN_DATA });
    await this.announce(trigger);
    return true;
  }

  /** Queues the callback of the run's result once the ledger stream holds it. */
  private async announce(trigger: QueueJobs[Q]): Promise<void> {
    const run = await this.confirmedRun(trigger);
    // A background invoke without a callback URL is read from the ledger: nothing to announce.
    if (trigger.callback_url === null) return;
    const { kind, deliveryId, owner } = this.describe(trigger);
    const body = triggerCallbackBody(kind, trigger.request_id, run);
    await enqueue(this.callbacks, deliveryId, {
      delivery_id: deliveryId,
      workspace_id: trigger.workspace_id,
      request_id: trigger.request_id,
      event_type: body.event_type,
      url: trigger.callback_url,
      body,
      owner,
      run_ended_at: run.ended_at ?? new Date().toISOString(),
    });
  }

  /** A dead-lettered job's run is not left `running`: it is failed in the ledger (a replay then announces it). */
  protected override async onDeadLettered(job: Job<QueueJobs[Q]>): Promise<void> {
    const trigger = job.data;
    if (await this.finishedRun(trigger)) return;
    this.recordEnded(trigger, 'failed', this.failureData(new WaggleException('internal_server_error')));
    await this.ledger.stored(trigger.request_id, LEDGER_PUBLISH_ATTEMPTS);
  }

  private async run(job: Job<QueueJobs[Q]>): Promise<void> {
    const trigger = job.data;
    try {
      await this.execute(trigger);
    } catch (error) {
      // An outage is waited out; an unexpected fault is tried again until the job's last attempt.
      if (isTransientFailure(error)) throw error;
      if (!(error instanceof WaggleException) && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw error;
      const failure = error instanceof WaggleException ? error : new WaggleException('internal_server_error');
      this.recordEnded(trigger, 'failed', this.failureData(failure));
      this.logger.warn({ request_id: trigger.request_id, error_code: failure.code }, `${job.queueName} trigger run ended`);
    }
  }

  private failureData(failure: WaggleException): Record<string, unknown> {
    return { error: failure.message, error_code: failure.code };
  }

  /**
   * The end of a run refused before it started (deleted variant or agent, deprecated model…) or
   * cancelled before it started, which has no record of its run yet.
   */
  private recordEnded(trigger: QueueJobs[Q], status: 'failed' | 'cancelled', data: Record<string, unknown>): void {
    if (!isFinishedRun(this.ledger.pendingRecord(trigger.request_id))) this.ledger.save(this.endedRecord(trigger, status, data));
  }

  private endedRecord(trigger: QueueJobs[Q], status: 'failed' | 'cancelled', data: Record<string, unknown>): LedgerRecord {
    const { kind, record } = this.describe(trigger);
    const now = new Date().toISOString();
    return {
      request_id: trigger.request_id,
      workspace_id: trigger.workspace_id,
      request_type: kind,
      ...record,
      deployment: null,
      variant: null,
      version: null,
      model: null,
      status,
      metadata: trigger.metadata,
      user: trigger.user,
      generated_at: trigger.accepted_at,
      started_at: now,
      ended_at: now,
      duration_ms: 0,
      usage: null,
      data,
    };
  }

  /** The run's record when it has finished: this replica's own not yet stored, else the ledger's. */
  private async finishedRun(trigger: QueueJobs[Q]): Promise<FinishedRun | null> {
    const own = this.ledger.pendingRecord(trigger.request_id);
    if (own) return isFinishedRun(own) ? own : null;
    const stored = await this.storedRecord(trigger);
    return isFinishedRun(stored) ? stored : null;
  }

  /** The run's finished record once the ledger stream holds it: a callback never announces a result that could be lost. */
  private async confirmedRun(trigger: QueueJobs[Q]): Promise<FinishedRun> {
    const requestId = trigger.request_id;
    const own = this.ledger.pendingRecord(requestId);
    // Waited out like any outage (the job goes back to the delayed set) rather than announcing a result the ledger does not hold.
    if (!(await this.ledger.stored(requestId, LEDGER_PUBLISH_ATTEMPTS)))
      throw new WaggleException('upstream_request_failed', {
        status: 503,
        detail: 'ledger_not_published',
        params: { request_id: requestId },
      });
    // Once no longer pending, the state held in memory is the state stored.
    const run = isFinishedRun(own) ? own : await this.finishedRun(trigger);
    if (run) return run;
    throw new Error(`The ledger record of ${requestId} is not finished`);
  }
}
