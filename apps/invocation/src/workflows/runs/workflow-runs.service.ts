import { Injectable } from '@nestjs/common';
import type {
  WorkflowInvokeResponse,
  WorkflowRunRequest,
  WorkflowRunView,
  WorkflowStepProgress,
  WorkflowStepRecordView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import type { StepFinished } from '../engine/workflow-engine';
import { StartWorkflowRun, type StartWorkflowRunInput } from './usecases/start-workflow-run/start-workflow-run';
import { toRunView } from './workflow-run-mappers';
import { WorkflowRunSettlement } from './workflow-run-settlement';
import { toStepRecordView, WorkflowRunsRepository } from './workflow-runs.repository';

/** A workflow invoke as StartWorkflowRun takes it. */
export function startInputOf(request: WorkflowRunRequest): StartWorkflowRunInput {
  return {
    requestId: request.request_id,
    workspaceId: request.workspace_id,
    deployment: request.deployment,
    variant: request.variant,
    inputs: request.inputs ?? {},
    async: request.async?.enabled === true ? { callbackUrl: request.async.callback_url ?? null } : null,
    metadata: request.metadata ?? {},
    user: request.user ?? null,
    surface: request.surface ?? null,
    limits: {
      concurrency: request.limits.concurrency,
      stepsPerRun: request.limits.steps_per_run,
      toolCallsPerDay: request.limits.tool_calls_per_day,
    },
  };
}

/**
 * Each finished step told on a caller's progress subject (a core NATS message, not kept: a
 * caller that is gone misses nothing it needs), numbered from 1.
 */
export function stepProgressOn(rpc: NatsRpcClient, subject: string): StepFinished {
  let done = 0;
  return (stepKey) => rpc.publish(subject, { steps_done: ++done, step_key: stepKey } satisfies WorkflowStepProgress);
}

/**
 * Workflow runs as the rest of the service asks for them: an invoke starts one (StartWorkflowRun,
 * where admission, local execution and the sync answer are), a lookup reads one and its step
 * records, and a cancel finishes one still waiting for its slot (WorkflowRunSettlement, which
 * also settles and announces every run the workers and the reaper end).
 */
@Injectable()
export class WorkflowRunsService {
  constructor(
    private readonly startRun: StartWorkflowRun,
    private readonly settlement: WorkflowRunSettlement,
    private readonly runs: WorkflowRunsRepository,
    private readonly rpc: NatsRpcClient,
  ) {}

  invoke(request: WorkflowRunRequest): Promise<WorkflowInvokeResponse> {
    const input = startInputOf(request);
    if (request.progress_subject !== undefined) input.onStepFinished = stepProgressOn(this.rpc, request.progress_subject);
    return this.startRun.start(input);
  }

  async lookup(workspaceId: string, requestId: string): Promise<WorkflowRunView> {
    const row = await this.runs.findInWorkspace(workspaceId, requestId);
    if (!row) throw new WaggleException('not_found', { detail: 'workflow_run_not_found' });
    return toRunView(row);
  }

  async steps(workspaceId: string, requestId: string): Promise<WorkflowStepRecordView[]> {
    const row = await this.runs.findInWorkspace(workspaceId, requestId);
    if (!row) throw new WaggleException('not_found', { detail: 'workflow_run_not_found' });
    return (await this.runs.steps(requestId)).map(toStepRecordView);
  }

  /** Finishes a run still waiting for its slot as cancelled, where it waits. False when it is not queued. */
  cancelQueued(id: string): Promise<boolean> {
    return this.settlement.cancelQueued(id);
  }
}
