import { Inject, Injectable } from '@nestjs/common';
import { QueueNames, type WorkflowRunJob } from '@waggle/contracts';
import { nestedMessage, WaggleException } from '@waggle/errors';
import { APP_ENV, isTransientFailure, QueueProcessor, QueueWorker, type RequestContextStore } from '@waggle/platform';
import type { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import type { InvocationEnv } from '../../config/invocation.env';
import { WorkflowDeploymentsService } from '../deployments/workflow-deployments.service';
import { failureText, RunFailure, WorkflowEngine } from '../engine/workflow-engine';
import { failureState, WorkflowRunsRepository } from './workflow-runs.repository';
import { WorkflowRunsService } from './workflow-runs.service';

/**
 * Executes workflow runs (queue `workflow-runs`, job id = request id), at least once: a worker
 * takes the run's lease, renews it while it works, and the engine skips every step a previous
 * attempt finished. A run already terminal when its job arrives is only announced again. A
 * failure of the run itself (a step, the step cap, the time-out) settles the run; an outage
 * (database, Redis) throws, and the job waits it out (QueueWorker); an unexpected fault is
 * tried again until the job's last attempt, then fails the run. A job dead-lettered anyway
 * (settling the run failed) leaves a running run to the reaper.
 */
@Injectable()
@QueueProcessor(QueueNames.workflowRuns)
export class WorkflowRunWorker extends QueueWorker<'workflow-runs'> {
  /** This process's lease owner name. */
  private readonly owner = `${process.pid}-${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly runs: WorkflowRunsRepository,
    private readonly service: WorkflowRunsService,
    private readonly deployments: WorkflowDeploymentsService,
    private readonly engine: WorkflowEngine,
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

  protected async handle(job: Job<WorkflowRunJob>): Promise<void> {
    const id = job.data.request_id;
    const run = await this.runs.claim(id, this.owner, this.env.WORKFLOW_LEASE_MS, this.env.WORKFLOW_RUN_TIMEOUT_MS);
    if (!run) {
      // Finished (or failed by the reaper) before this attempt: make sure it was announced.
      const row = await this.runs.find(id);
      if (row) await this.service.announce(row);
      return;
    }
    const controller = new AbortController();
    let lost = false;
    const remaining = Math.max(0, (run.deadline_at?.getTime() ?? Date.now()) - Date.now());
    const deadline = setTimeout(
      () =>
        controller.abort(
          new RunFailure(
            'upstream_request_failed',
            nestedMessage({ detail: 'workflow_run_deadline', params: { seconds: Math.round(this.env.WORKFLOW_RUN_TIMEOUT_MS / 1000) } }),
            null,
            true,
          ),
        ),
      remaining,
    );
    const heartbeat = setInterval(
      () => {
        this.runs.heartbeat(id, this.owner, this.env.WORKFLOW_LEASE_MS).then(
          (held) => {
            if (held) return;
            lost = true;
            controller.abort(new RunFailure('internal_server_error', { detail: 'workflow_run_lease_lost' }, null, true));
          },
          (error: unknown) => this.logger.warn({ err: error, request_id: id }, 'workflow run heartbeat failed'),
        );
      },
      Math.max(250, Math.floor(this.env.WORKFLOW_LEASE_MS / 3)),
    );
    try {
      const workflow = await this.deployments.pinned(run.workspace_id, run.version_id);
      const previous = new Map((await this.runs.steps(id)).map((step) => [step.step_key, step]));
      const execution = { run, definition: workflow.definition, previous, signal: controller.signal, stepsExecuted: 0, totalTokens: 0 };
      let state;
      try {
        const output = await this.engine.execute(execution);
        state = { status: 'completed' as const, output, errorMessage: null, errorDetail: null, errorCode: null };
      } catch (error) {
        if (!(error instanceof RunFailure)) throw error;
        // A run taken from this worker belongs to whoever took it (or is already failed): leave it.
        if (lost) return;
        state = { status: 'failed' as const, output: null, errorMessage: error.message, errorDetail: error.detail, errorCode: error.code };
        this.logger.log({ request_id: id, step: error.stepId, error_code: error.code }, 'workflow run failed');
      }
      await this.service.settle(id, { ...state, stepsExecuted: execution.stepsExecuted, totalTokens: execution.totalTokens });
    } catch (error) {
      // An outage is waited out; a refusal (the pinned version is gone…) fails the run at once,
      // an unexpected fault after the job's last attempt.
      if (isTransientFailure(error)) throw error;
      const refusal = error instanceof WaggleException ? error : null;
      if (!refusal && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw error;
      this.logger.error({ err: error, request_id: id }, 'workflow run could not be executed');
      await this.service.settle(id, {
        status: 'failed',
        output: null,
        ...failureState(refusal ? failureText(refusal) : { detail: 'workflow_run_not_executed' }),
        errorCode: refusal?.code ?? 'internal_server_error',
      });
    } finally {
      clearTimeout(deadline);
      clearInterval(heartbeat);
    }
  }
}
