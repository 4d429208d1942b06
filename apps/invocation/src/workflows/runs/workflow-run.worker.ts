import { Inject, Injectable } from '@nestjs/common';
import { QueueNames, type WorkflowRunJob } from '@waggle/contracts';
import { APP_ENV, QueueProcessor, QueueWorker, type RequestContextStore } from '@waggle/platform';
import { RunCancellation, RunCancelMarks } from '@waggle/runs';
import { DelayedError, type Job } from 'bullmq';
import type { InvocationEnv } from '../../config/invocation.env';
import { WorkflowRunExecutor } from './workflow-run.executor';
import { CANCELLED_STATE, WorkflowRunsRepository, type WorkflowRunRow } from './workflow-runs.repository';
import { WorkflowRunSettlement } from './workflow-run-settlement';

/**
 * Executes workflow runs from the queue `workflow-runs` (job id = request id), at least once: a
 * run promoted from the queue, one no replica could take where it was admitted, and the safety
 * net of one that is (its job waits a lease long, and runs only when the lease holder stopped
 * renewing it). A worker takes the run's lease, renews it while it works, and the engine skips
 * every step a previous attempt finished. A run already terminal when its job arrives is only
 * announced again; a run whose lease another holder still renews is looked at again when that
 * lease would lapse. A failure of the run itself (a step, the step cap, the time-out) settles
 * the run; an outage (database, Redis) throws, and the job waits it out (QueueWorker); an
 * unexpected fault is tried again until the job's last attempt, then fails the run. A job
 * dead-lettered anyway (settling the run failed) leaves a running run to the reaper. A run marked
 * cancelled is never taken: it is finished `cancelled` (one Redis read per job).
 */
@Injectable()
@QueueProcessor(QueueNames.workflowRuns)
export class WorkflowRunWorker extends QueueWorker<'workflow-runs'> {
  constructor(
    private readonly runs: WorkflowRunsRepository,
    private readonly settlement: WorkflowRunSettlement,
    private readonly executor: WorkflowRunExecutor,
    private readonly marks: RunCancelMarks,
    private readonly cancellation: RunCancellation,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {
    super({
      queue: QueueNames.workflowRuns,
      redisUrl: env.REDIS_URL,
      concurrency: env.WORKFLOW_RUN_CONCURRENCY,
      lockMs: env.WORKFLOW_LEASE_MS,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    });
  }

  protected contextOf(job: WorkflowRunJob): RequestContextStore {
    return { requestId: job.request_id, workspaceId: job.workspace_id };
  }

  protected async handle(job: Job<WorkflowRunJob>, token: string | undefined): Promise<void> {
    const id = job.data.request_id;
    if (await this.marks.isMarked(id)) {
      // Cancelled while it waited (or while another replica, now silent, held it): it never runs again.
      await this.settlement.settle(id, CANCELLED_STATE);
      return;
    }
    const claim = await this.runs.claim(id, this.executor.owner, this.env.WORKFLOW_LEASE_MS, this.env.WORKFLOW_RUN_TIMEOUT_MS);
    if (claim.state === 'leased') {
      // Its holder is alive (it renews the lease): look again when the lease would lapse.
      await job.moveToDelayed(Date.now() + claim.waitMs + 100, token);
      throw new DelayedError();
    }
    if (claim.state === 'gone') {
      // Finished (or failed by the reaper) before this attempt: make sure it was announced.
      const row = await this.runs.find(id);
      if (row) await this.settlement.announce(row);
      return;
    }
    const tracked = this.cancellation.track(id);
    let settled: WorkflowRunRow | null = null;
    try {
      const state = await this.executor.execute(claim.run, tracked.signal);
      if (state) settled = await this.settlement.settle(id, state);
    } catch (error) {
      const fault = this.executor.fault(error, job.attemptsMade + 1 < (job.opts.attempts ?? 1), id);
      if (fault.retry) throw fault.error;
      settled = await this.settlement.settle(id, fault.state);
    } finally {
      tracked.done(settled?.run_status);
    }
  }
}
