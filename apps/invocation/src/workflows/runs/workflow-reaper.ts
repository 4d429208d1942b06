import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { nestedMessage } from '@waggle/errors';
import { APP_ENV, contained } from '@waggle/platform';
import { RunCancelMarks } from '@waggle/runs';
import type { InvocationEnv } from '../../config/invocation.env';
import { CANCELLED_STATE, failureState, WorkflowRunsRepository } from './workflow-runs.repository';
import { WorkflowRunSettlement } from './workflow-run-settlement';

/**
 * Fails runs that no worker finishes: a run whose worker died (its lease lapsed and no other
 * worker took it within the grace) or that passed its time-out. Failing it frees its slot and
 * starts the workspace's next queued run; a terminal state is never changed, so a worker that
 * comes back late cannot undo it. Every replica sweeps; the terminal move is atomic, so two
 * sweeps of one run settle it once. A run marked cancelled is finished `cancelled`, never queued again.
 */
@Injectable()
export class WorkflowReaper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WorkflowReaper.name);
  private timer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly runs: WorkflowRunsRepository,
    private readonly settlement: WorkflowRunSettlement,
    private readonly marks: RunCancelMarks,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(
      contained('the workflow reaper', () => this.sweep()),
      this.env.WORKFLOW_REAPER_INTERVAL_MS,
    );
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** One sweep; answers how many runs it failed. */
  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let failed = 0;
    try {
      for (const { id, workspace_id: workspaceId, reason } of await this.runs.abandoned(
        this.env.WORKFLOW_REAPER_GRACE_MS,
        this.env.WORKFLOW_RUN_TIMEOUT_MS,
      )) {
        if (await this.marks.isMarked(id)) {
          await this.settlement.settle(id, CANCELLED_STATE);
          continue;
        }
        if (reason === 'unclaimed') {
          // Queued again by its request id: a job still waiting is left as it is.
          await this.settlement.requeue(id, workspaceId);
          continue;
        }
        const why =
          reason === 'deadline'
            ? nestedMessage({ detail: 'workflow_run_deadline', params: { seconds: Math.round(this.env.WORKFLOW_RUN_TIMEOUT_MS / 1000) } })
            : nestedMessage({ detail: 'workflow_worker_stopped' });
        const row = await this.settlement.settle(id, {
          status: 'failed',
          output: null,
          ...failureState(why),
          errorCode: reason === 'deadline' ? 'upstream_request_failed' : 'internal_server_error',
        });
        if (row?.run_status === 'failed') failed += 1;
        this.logger.warn({ request_id: id, reason }, 'workflow run failed by the reaper');
      }
      for (const workspaceId of await this.runs.workspacesWithStartableRuns()) await this.settlement.startQueued(workspaceId);
    } catch (error) {
      this.logger.warn({ err: error }, 'workflow reaper sweep failed');
    } finally {
      this.sweeping = false;
    }
    return failed;
  }
}
