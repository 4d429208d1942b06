import {
  acceptedTriggerRecord,
  type AcceptedRun,
  type AcceptedTriggerJob,
  type CallbackDeliveryJob,
  type LedgerRecord,
  type QueueJobs,
  type QueueName,
  type TriggeredRun as AcceptedRunSubject,
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
import { announceRunEnd } from '../announce/announce-run-end';
import { CANCELLED_RUN_DATA, isFinishedRun, type FinishedRun, type RunRecord } from '../announce/run-callback-body';
import type { RunCancelMarks } from '../cancellation/run-cancellation';
import { LEDGER_PUBLISH_ATTEMPTS, type LedgerPublisher } from '../ledger/ledger-publisher';

/** A job of a trigger queue: a run accepted for later, and where its result goes (null: read from the ledger). */
type TriggerJob = AcceptedTriggerJob & { callback_url: string | null };

/**
 * The queues of accepted runs (webhook triggers, background invokes): those whose jobs are
 * TriggerJobs. Which queue a worker consumes is its app's (the subclass names it).
 */
export type TriggerQueue = { [Q in QueueName]: QueueJobs[Q] extends TriggerJob ? Q : never }[QueueName];

/** BullMQ states of a job no worker has taken: it can be finished where it waits. */
const WAITING_STATES: ReadonlySet<string> = new Set(['waiting', 'paused', 'delayed', 'prioritized', 'waiting-children']);

/** What is run: a prompt deployment or an agent (the callback's event types and the ledger record's kind). */
export type TriggeredKind = 'prompt' | 'agent';

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
 * Runs accepted webhook triggers and background invokes (a prompt's, an agent's) at least
 * once, and announces each run's result exactly once (announceRunEnd, as every kind of run is
 * announced): the result is stored in the ledger stream before its callback is queued, and the
 * callback's job id is the delivery id, so a job run again never announces twice. A job that
 * finds its run already finished (this replica's record still waiting to be published, else the
 * ledger's) only queues the callback, so the model is not called again. A run that fails for a
 * reason is recorded failed and announced; an outage is waited out (QueueWorker); an unexpected
 * fault is tried again until the job's last attempt. A job dead-lettered anyway (its attempts
 * spent, or its replicas lost too often while they held it) leaves its run failed in the ledger,
 * and announced. A run cancelled (decisions.md, run
 * cancellation) never starts from its job once marked (one Redis read per job), and one still
 * waiting is finished where it waits (cancelWaiting): recorded `cancelled` and announced
 * `*.cancelled`, exactly once like the others.
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

  /**
   * Announces the run's end (announceRunEnd): once the ledger stream holds its result, its
   * callback is queued by delivery id (none for a background invoke, which is read from the ledger).
   */
  private async announce(trigger: QueueJobs[Q]): Promise<void> {
    const requestId = trigger.request_id;
    // Taken before the ledger is flushed: once no longer pending, the state held in memory is the state stored.
    const own = this.ledger.pendingRecord(requestId);
    const { kind, deliveryId, owner } = this.describe(trigger);
    await announceRunEnd(
      { ledger: this.ledger, callbacks: this.callbacks },
      {
        kind,
        requestId,
        workspaceId: trigger.workspace_id,
        result: { saved: () => this.confirmedRun(trigger, own) },
        callback: trigger.callback_url === null ? null : { url: trigger.callback_url, deliveryId, owner },
        // Waited out like any outage (the job goes back to the delayed set) rather than announcing a result the ledger does not hold.
        ledgerAttempts: LEDGER_PUBLISH_ATTEMPTS,
      },
    );
  }

  /**
   * A dead-lettered job's run is not left `running`, and its caller is told: it is failed in the
   * ledger (unless it had finished) and announced as any run's end is, so its callback says
   * `*.failed` rather than nothing (a replay then finds it finished, and its callback queued).
   */
  protected override async onDeadLettered(job: Job<QueueJobs[Q]>): Promise<void> {
    const trigger = job.data;
    if (!(await this.finishedRun(trigger)))
      this.recordEnded(trigger, 'failed', this.failureData(new WaggleException('internal_server_error')));
    await this.announce(trigger);
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

  /** The run's finished record, read once the ledger stream holds it: what this replica held before, else the ledger's. */
  private async confirmedRun(trigger: QueueJobs[Q], own: RunRecord | undefined): Promise<FinishedRun> {
    const run = isFinishedRun(own) ? own : await this.finishedRun(trigger);
    if (run) return run;
    throw new Error(`The ledger record of ${trigger.request_id} is not finished`);
  }
}
