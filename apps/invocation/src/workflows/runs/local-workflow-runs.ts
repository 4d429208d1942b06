import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { APP_ENV, enqueue, requestContext, type JobQueue } from '@waggle/platform';
import { RunCancellation } from '@waggle/runs';
import type { InvocationEnv } from '../../config/invocation.env';
import { LocalRunSlots } from './local-run-slots';
import { SyncRunWaiters } from './sync-run-waiters';
import type { StepFinished } from '../engine/workflow-engine';
import { isTerminalRun } from './workflow-run-mappers';
import { WorkflowRunExecutor } from './workflow-run.executor';
import { WorkflowRunSettlement } from './workflow-run-settlement';
import type { TerminalState, WorkflowRunRow } from './workflow-runs.repository';

/**
 * Workflow runs executed where they were admitted (a LocalRunSlots slot and the run's lease
 * taken at admission), and awaited at shutdown for SHUTDOWN_GRACE_MS. An async run has its queue
 * job waiting a lease long as the safety net from the start. A sync run gets one only once its
 * caller stops waiting here (its wait timed out, or this replica shuts down): until then a crash
 * here fails the caller's request anyway, and the reaper fails the run once its lease lapsed,
 * so the queue is not touched by a sync run that ends while its caller waits.
 */
@Injectable()
export class LocalWorkflowRuns implements BeforeApplicationShutdown {
  private readonly logger = new Logger(LocalWorkflowRuns.name);
  /** Executions under way here, whether or not anyone still waits for them. */
  private readonly background = new Set<Promise<unknown>>();
  /** Sync runs executing here, by request id, with their safety nets (not added while their callers wait). */
  private readonly syncSafetyNets = new Map<string, SafetyNetJob>();

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
    const execution = this.runHere(run, onStepFinished);
    const tracked = execution.catch(() => undefined).finally(() => this.background.delete(tracked));
    this.background.add(tracked);
    return execution;
  }

  /** A sync run's caller stopped waiting for it here (its wait timed out): the run gets its safety net now. */
  callerGone(id: string): void {
    void this.syncSafetyNets.get(id)?.add();
  }

  /**
   * At shutdown (after the NATS server stopped taking requests), runs executing here are given
   * SHUTDOWN_GRACE_MS to end; those still running are left to their queue jobs (their leases
   * lapse), so every sync run still executing gets its safety net first.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.slots.close();
    await Promise.all([...this.syncSafetyNets.values()].map((safetyNet) => safetyNet.add()));
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
   * safety net (a crash here leaves the run to it; removed once the run is settled), from the
   * start for an async run, from when its caller stops waiting for a sync one. An outage or an
   * unexpected fault hands the run to the queue at once; a refusal fails it.
   */
  private async runHere(run: WorkflowRunRow, onStepFinished?: StepFinished): Promise<WorkflowRunRow | null> {
    const id = run.id;
    const tracked = this.cancellation.track(id);
    let settled: WorkflowRunRow | null = null;
    const safetyNet = new SafetyNetJob(() =>
      enqueue(this.jobs, id, { request_id: id, workspace_id: run.workspace_id }, { delayMs: this.env.WORKFLOW_LEASE_MS }).then(
        () => true,
        (error: unknown) => {
          this.logger.warn({ err: error, request_id: id }, 'a workflow run executed where admitted has no queue job to take it over');
          return false;
        },
      ),
    );
    if (run.run_async) void safetyNet.add();
    else {
      this.waiters.executingHere(id);
      this.syncSafetyNets.set(id, safetyNet);
    }
    const handOver = (error: unknown) => {
      this.logger.warn({ err: error, request_id: id }, 'a workflow run executed where admitted goes to the queue');
      void safetyNet.added
        .then((queued) => (queued ? this.takeOverNow(id) : this.settlement.requeue(id, run.workspace_id)))
        .catch(() => undefined);
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
      void safetyNet.added.then((queued) => (queued ? this.jobs.remove(id) : 0)).catch(() => undefined);
      return settled && isTerminalRun(settled) ? settled : null;
    } finally {
      this.syncSafetyNets.delete(id);
      this.slots.release();
      this.waiters.doneHere(id);
      tracked.done(settled?.run_status);
    }
  }

  /** The run's waiting queue job may be taken at once. */
  private async takeOverNow(id: string): Promise<void> {
    const job = await this.jobs.getJob(id);
    if (job && (await job.isDelayed())) await job.promote();
  }
}

/** A run's safety-net job, added at most once. */
class SafetyNetJob {
  private adding: Promise<boolean> | null = null;

  /** `enqueue` adds the job and answers whether it could. */
  constructor(private readonly enqueue: () => Promise<boolean>) {}

  /** Adds the job unless it was asked for already; answers whether the run has it. */
  add(): Promise<boolean> {
    return (this.adding ??= this.enqueue());
  }

  /** Whether the run has its job (false while none was asked for, or when adding it failed). */
  get added(): Promise<boolean> {
    return this.adding ?? Promise.resolve(false);
  }
}
