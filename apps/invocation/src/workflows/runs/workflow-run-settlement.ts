import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { BatchedEnqueue, isTransientFailure, type JobQueue } from '@waggle/platform';
import { announceRunEnd, isFinishedRun, LedgerPublisher } from '@waggle/runs';
import { deliveryIdFor } from '@waggle/webhooks';
import { SyncRunWaiters } from './sync-run-waiters';
import { ledgerRecordOf } from './workflow-run-mappers';
import {
  CANCELLED_STATE,
  failureState,
  WorkflowRunsRepository,
  type ActiveStatuses,
  type TerminalState,
  type WorkflowRunRow,
} from './workflow-runs.repository';

/**
 * What follows a workflow run's every move, wherever it is made (where the run was admitted, a
 * queue worker, the reaper, a cancel): a running run's queue job, and for every terminal move the
 * announcement (the ledger record, the callback of an async run, the waiting sync caller) and the
 * start of the queued runs that now fit.
 */
@Injectable()
export class WorkflowRunSettlement {
  private readonly logger = new Logger(WorkflowRunSettlement.name);
  /** Run jobs queued together when runs are admitted together. */
  private readonly jobs: BatchedEnqueue<'workflow-runs'>;

  constructor(
    private readonly runs: WorkflowRunsRepository,
    private readonly ledger: LedgerPublisher,
    private readonly waiters: SyncRunWaiters,
    @InjectQueue(QueueNames.workflowRuns) queue: JobQueue<'workflow-runs'>,
    @InjectQueue(QueueNames.callbacks) private readonly callbacks: JobQueue<'callbacks'>,
  ) {
    this.jobs = new BatchedEnqueue(queue);
  }

  /**
   * Queues a run's job (a no-op while its job exists). `delayMs`: it waits that long before a
   * worker may take it (the safety net of a run executed where it was admitted).
   */
  queueJob(id: string, workspaceId: string, delayMs?: number): Promise<void> {
    return this.jobs.add(id, { request_id: id, workspace_id: workspaceId }, { delayMs });
  }

  /**
   * A terminal move and everything that follows it. Idempotent: a run already terminal is only
   * announced again (its callback is queued by delivery id, so it is delivered once).
   */
  async settle(id: string, state: TerminalState, from: ActiveStatuses = 'active'): Promise<WorkflowRunRow | null> {
    const { run, promoted } = await this.runs.finish(id, state, from);
    const row = run ?? (await this.runs.find(id));
    if (row) await this.announce(row);
    for (const started of promoted) {
      this.ledger.save(ledgerRecordOf(started));
      await this.enqueue(started).catch((error: unknown) =>
        this.logger.error({ err: error, request_id: started.id }, 'a promoted workflow run could not be queued; the reaper will fail it'),
      );
    }
    return row;
  }

  /**
   * Tells everyone a terminal run ended, as every kind of run's end is told (announceRunEnd): the
   * ledger first (the final record, stored before anything else happens: while the ledger is away
   * this throws and the run's job settles it again), then its callback (an async run with a
   * callback URL), then the waiting sync caller.
   */
  async announce(row: WorkflowRunRow): Promise<void> {
    const record = ledgerRecordOf(row);
    if (!isFinishedRun(record)) return;
    await announceRunEnd(
      { ledger: this.ledger, callbacks: this.callbacks },
      {
        kind: 'workflow',
        requestId: row.id,
        workspaceId: row.workspace_id,
        result: { record },
        callback:
          row.run_async && row.callback_url
            ? { url: row.callback_url, deliveryId: deliveryIdFor(row.id), owner: { kind: 'workflow_deployment', id: row.deployment_id } }
            : null,
      },
    );
    this.waiters.ended(row);
  }

  /**
   * Finishes a run still waiting for its slot as cancelled, where it waits (its slot counter, the
   * ledger and its callback follow as for any terminal move). False when it is not queued.
   */
  async cancelQueued(id: string): Promise<boolean> {
    const row = await this.settle(id, CANCELLED_STATE, 'queued');
    return row?.run_status === 'cancelled';
  }

  /** Starts queued runs that fit now (called by the reaper as a safety net). */
  async startQueued(workspaceId: string): Promise<void> {
    for (const started of await this.runs.promoteQueued(workspaceId)) {
      this.ledger.save(ledgerRecordOf(started));
      await this.enqueue(started);
    }
  }

  /** Queues a running run's job again (a no-op while its job exists). */
  async requeue(id: string, workspaceId: string): Promise<void> {
    await this.queueJob(id, workspaceId);
  }

  /**
   * Queues a running run's job, for a worker to execute. While Redis is away the run stays stored
   * as running and the reaper queues it later; a queue that refuses it fails the run
   * (`workflow_enqueue_failed`, thrown to the caller too).
   */
  async enqueue(row: WorkflowRunRow): Promise<void> {
    try {
      await this.queueJob(row.id, row.workspace_id);
    } catch (error) {
      if (isTransientFailure(error)) {
        // Redis is away, but the run is stored as running: the reaper queues a running run that no
        // worker has taken within WORKFLOW_REAPER_GRACE_MS, so the caller's run is accepted as it is.
        this.logger.warn({ err: error, request_id: row.id }, 'a workflow run could not be queued yet; the reaper will queue it');
        return;
      }
      this.logger.error({ err: error, request_id: row.id }, 'a workflow run could not be queued');
      await this.settle(row.id, {
        status: 'failed',
        output: null,
        ...failureState({ detail: 'workflow_run_not_enqueued' }),
        errorCode: 'workflow_enqueue_failed',
      });
      throw new WaggleException('workflow_enqueue_failed', { extra: { request_id: row.id } });
    }
  }
}
