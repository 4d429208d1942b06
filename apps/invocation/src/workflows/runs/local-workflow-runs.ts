import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { APP_ENV, cappedBackoffMs, requestContext, type BackoffSettings, type JobQueue } from '@waggle/platform';
import { setTimeout as delay } from 'node:timers/promises';
import { RunCancellation } from '@waggle/runs';
import type { InvocationEnv } from '../../config/invocation.env';
import { LocalRunSlots } from './local-run-slots';
import { SyncRunWaiters } from './sync-run-waiters';
import type { StepFinished } from '../engine/workflow-engine';
import { isTerminalRun } from './workflow-run-mappers';
import { WorkflowRunExecutor } from './workflow-run.executor';
import { WorkflowRunSettlement } from './workflow-run-settlement';
import type { TerminalState, WorkflowRunRow } from './workflow-runs.repository';

/** How a run handed over while Redis is away tries again to queue its job: from 250 ms, doubling, at most 5 s. */
const REQUEUE_BACKOFF: BackoffSettings = { baseMs: 250, maxMs: 5_000 };

/**
 * Workflow runs executed where they were admitted (a LocalRunSlots slot and the run's lease
 * taken at admission), each with its queue job waiting a lease long as the safety net, and
 * awaited at shutdown for SHUTDOWN_GRACE_MS.
 */
@Injectable()
export class LocalWorkflowRuns implements BeforeApplicationShutdown {
  private readonly logger = new Logger(LocalWorkflowRuns.name);
  /** Executions under way here, whether or not anyone still waits for them, and hand-overs still trying to queue a run. */
  private readonly background = new Set<Promise<unknown>>();
  private stopping = false;

  constructor(
    private readonly slots: LocalRunSlots,
    private readonly executor: WorkflowRunExecutor,
    private readonly settlement: WorkflowRunSettlement,
    private readonly waiters: SyncRunWaiters,
    private readonly cancellation: RunCancellation,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
    @InjectQueue(QueueNames.workflowRuns) private readonly jobs: JobQueue<'workflow-runs'>,
  ) {}

  /**
   * Executes a run admitted here with its lease, in the background (it goes on when its caller
   * stops waiting), and answers its settled row, or null when the run went elsewhere.
   * `onStepFinished` is told each step as it finishes here.
   */
  start(run: WorkflowRunRow, onStepFinished?: StepFinished): Promise<WorkflowRunRow | null> {
    return this.inBackground(this.runHere(run, onStepFinished));
  }

  private inBackground<T>(work: Promise<T>): Promise<T> {
    const tracked = work.catch(() => undefined).finally(() => this.background.delete(tracked));
    this.background.add(tracked);
    return work;
  }

  /**
   * At shutdown (after the NATS server stopped taking requests), runs executing here are given
   * SHUTDOWN_GRACE_MS to end; those still running are left to their queue jobs (their leases lapse).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.slots.close();
    if (this.background.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.env.SHUTDOWN_GRACE_MS)));
    await Promise.race([Promise.all(this.background), outOfTime]);
    clearTimeout(timer);
    if (this.background.size > 0)
      this.logger.warn(
        `${this.background.size} workflow run(s) still running at the end of the shutdown grace; their queue jobs take them over`,
      );
  }

  /**
   * Executes a run this replica admitted and holds the lease of, and settles it: answers the
   * settled row, or null when the run went elsewhere. Its queue job waits a lease long as the
   * safety net (a crash here leaves the run to it; removed once the run is settled). An outage or
   * an unexpected fault hands the run to the queue at once; a refusal fails it.
   */
  private async runHere(run: WorkflowRunRow, onStepFinished?: StepFinished): Promise<WorkflowRunRow | null> {
    const id = run.id;
    if (!run.run_async) this.waiters.executingHere(id);
    const tracked = this.cancellation.track(id);
    let settled: WorkflowRunRow | null = null;
    const safetyNet = this.settlement.queueJob(id, run.workspace_id, this.env.WORKFLOW_LEASE_MS).then(
      () => true,
      (error: unknown) => {
        this.logger.warn({ err: error, request_id: id }, 'a workflow run executed where admitted has no queue job to take it over');
        return false;
      },
    );
    const handOver = (error: unknown) => {
      this.logger.warn({ err: error, request_id: id }, 'a workflow run executed where admitted goes to the queue');
      void this.inBackground(
        safetyNet.then((queued) => (queued ? this.takeOverNow(id) : this.queueUntilTaken(id, run.workspace_id))),
      ).catch(() => undefined);
      return null;
    };
    try {
      let state: TerminalState | null;
      try {
        state = await requestContext.run({ requestId: id, workspaceId: run.workspace_id }, () =>
          this.executor.execute(run, tracked.signal, onStepFinished),
        );
      } catch (error) {
        const fault = this.executor.fault(error, true, id);
        if (fault.retry) return handOver(fault.error);
        state = fault.state;
      }
      // null: the lease was lost, and the run is whoever took it over's.
      if (!state) return null;
      try {
        settled = await this.settlement.settle(id, state);
      } catch (error) {
        // Not announced (the ledger is away…): the queue job settles it again.
        return handOver(error);
      }
      void safetyNet.then((queued) => (queued ? this.jobs.remove(id) : 0)).catch(() => undefined);
      return settled && isTerminalRun(settled) ? settled : null;
    } finally {
      this.slots.release();
      this.waiters.doneHere(id);
      tracked.done(settled?.run_status);
    }
  }

  /**
   * Queues the job of a run handed over without a safety net (Redis was away when it started, and
   * still is), trying again with capped backoff until Redis takes it. Only its job can finish it
   * then: the reaper takes back a running run, but not one whose terminal move was made and whose
   * announcement (its callback) failed. Given up only when this replica stops (one line says so).
   */
  private async queueUntilTaken(id: string, workspaceId: string): Promise<void> {
    for (let retry = 0; ; retry += 1) {
      try {
        await this.settlement.requeue(id, workspaceId);
        if (retry > 0) this.logger.log({ request_id: id, retries: retry }, 'a workflow run handed over is queued');
        return;
      } catch (error) {
        if (this.stopping) {
          this.logger.error({ err: error, request_id: id }, 'a workflow run handed over could not be queued before this replica stopped');
          return;
        }
        await delay(cappedBackoffMs(retry, REQUEUE_BACKOFF));
      }
    }
  }

  /** The run's waiting queue job may be taken at once. */
  private async takeOverNow(id: string): Promise<void> {
    const job = await this.jobs.getJob(id);
    if (job && (await job.isDelayed())) await job.promote();
  }
}
