import { Inject, Injectable, Logger } from '@nestjs/common';
import { nestedMessage, WaggleException } from '@waggle/errors';
import { APP_ENV, isTransientFailure, requestContext } from '@waggle/platform';
import { RunCost } from '@waggle/providers';
import { inSpan, markSpanFailed } from '@waggle/telemetry';
import { randomUUID } from 'node:crypto';
import type { InvocationEnv } from '../../config/invocation.env';
import { WorkflowDeploymentsService } from '../deployments/workflow-deployments.service';
import { StepRecords } from '../engine/step-records';
import { cancelledRunFailure, failureText, isRunCancel, RunFailure, WorkflowEngine, type StepFinished } from '../engine/workflow-engine';
import { CANCELLED_STATE, failureState, WorkflowRunsRepository, type TerminalState, type WorkflowRunRow } from './workflow-runs.repository';

/** How an execution that did not reach a terminal state ended: try again, or fail the run with this state. */
export type ExecutionFault = { retry: true; error: unknown } | { retry: false; state: TerminalState };

/**
 * Executes one run whose lease this replica holds, wherever it was taken: where it was admitted
 * (LocalWorkflowRuns) or from the `workflow-runs` queue (WorkflowRunWorker). It renews the
 * lease while it works, aborts at the run's deadline or when the lease is lost, and answers the
 * terminal state to settle; it settles nothing itself.
 */
@Injectable()
export class WorkflowRunExecutor {
  private readonly logger = new Logger(WorkflowRunExecutor.name);
  /** This process's lease owner name. */
  readonly owner = `${process.pid}-${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly runs: WorkflowRunsRepository,
    private readonly deployments: WorkflowDeploymentsService,
    private readonly engine: WorkflowEngine,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {}

  /** The lease an admission takes for the run it executes at once. */
  lease(): { owner: string; leaseMs: number; timeoutMs: number } {
    return { owner: this.owner, leaseMs: this.env.WORKFLOW_LEASE_MS, timeoutMs: this.env.WORKFLOW_RUN_TIMEOUT_MS };
  }

  /**
   * Runs every step. Answers the terminal state (with the counters), or null when the lease was
   * lost (the run is whoever took it over's, or already failed). An outage or an unexpected fault
   * throws, after giving the lease back so the next attempt need not wait for it to lapse.
   * `cancel` (RunCancellation's signal of the run) stops it: no further step, running steps
   * aborted, and the state is `cancelled` with what the steps so far used (tokens, cost). `onStepFinished` is
   * told each step as it finishes (a caller's progress).
   *
   * The execution is one span (`workflow {deployment}`), the steps' spans its children, with the
   * state it answers as `waggle.workflow.run.status` (a failed run's span has ERROR status and
   * the failure's code; `lease_lost` when the run was left to whoever took it over).
   *
   * The run's deadline is the deadline of its steps' calls (an agent run, a search…): `send` cuts
   * each call's wait to what is left of it.
   */
  async execute(run: WorkflowRunRow, cancel?: AbortSignal, onStepFinished?: StepFinished): Promise<TerminalState | null> {
    const attributes = { 'waggle.workflow.run.id': run.id, 'waggle.workflow.id': run.deployment_id };
    const store = { ...requestContext.get(), deadlineAt: run.deadline_at?.getTime(), creditsExhausted: run.credits_exhausted };
    return requestContext.run(store, () =>
      inSpan(`workflow ${run.deployment_name}`, attributes, async (span) => {
        const state = await this.executeRun(run, cancel, onStepFinished);
        span.setAttribute('waggle.workflow.run.status', state?.status ?? 'lease_lost');
        if (state?.status === 'failed') markSpanFailed(span, state, state.errorCode ?? undefined);
        return state;
      }),
    );
  }

  private async executeRun(run: WorkflowRunRow, cancel?: AbortSignal, onStepFinished?: StepFinished): Promise<TerminalState | null> {
    const id = run.id;
    const controller = new AbortController();
    const onCancel = () => controller.abort(cancelledRunFailure());
    if (cancel?.aborted) onCancel();
    else cancel?.addEventListener('abort', onCancel, { once: true });
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
      // A first attempt has no earlier step records to read.
      const previous = new Map(run.attempts > 1 ? (await this.runs.steps(id)).map((step) => [step.step_key, step]) : []);
      const execution = {
        run,
        definition: workflow.definition,
        previous,
        signal: controller.signal,
        records: new StepRecords(this.runs),
        stepsExecuted: 0,
        totalTokens: 0,
        cost: new RunCost(),
        ...(onStepFinished && { onStepFinished }),
      };
      let state: TerminalState;
      try {
        const output = await this.engine.execute(execution);
        state = { status: 'completed', output, errorMessage: null, errorDetail: null, errorCode: null };
      } catch (error) {
        if (!(error instanceof RunFailure)) throw error;
        // A run taken from this worker belongs to whoever took it (or is already failed): leave it.
        if (lost) return null;
        if (isRunCancel(controller.signal)) {
          state = CANCELLED_STATE;
          this.logger.log({ request_id: id }, 'workflow run cancelled');
        } else {
          state = { status: 'failed', output: null, errorMessage: error.message, errorDetail: error.detail, errorCode: error.code };
          this.logger.log({ request_id: id, step: error.stepId, error_code: error.code }, 'workflow run failed');
        }
      }
      // The records still held go with the terminal move (settle).
      const records = await execution.records.drain();
      return {
        ...state,
        stepsExecuted: execution.stepsExecuted,
        totalTokens: execution.totalTokens,
        cost: execution.cost.fields(),
        records,
      };
    } catch (error) {
      await this.runs.release(id, this.owner).catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(deadline);
      clearInterval(heartbeat);
      cancel?.removeEventListener('abort', onCancel);
    }
  }

  /**
   * What a fault of `execute` means: an outage is waited out, an unexpected fault is tried again
   * while `mayRetry`, and a refusal (the pinned version is gone…) or a last unexpected fault fails the run.
   */
  fault(error: unknown, mayRetry: boolean, id: string): ExecutionFault {
    if (isTransientFailure(error)) return { retry: true, error };
    const refusal = error instanceof WaggleException ? error : null;
    if (!refusal && mayRetry) return { retry: true, error };
    this.logger.error({ err: error, request_id: id }, 'workflow run could not be executed');
    return {
      retry: false,
      state: {
        status: 'failed',
        output: null,
        ...failureState(refusal ? failureText(refusal) : { detail: 'workflow_run_not_executed' }),
        errorCode: refusal?.code ?? 'internal_server_error',
      },
    };
  }
}
