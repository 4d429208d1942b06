import { Injectable } from '@nestjs/common';
import type { FlatMetadata, RunSurface, WorkflowInvokeResponse } from '@waggle/contracts';
import { WorkflowDeploymentsService } from '../../../deployments/workflow-deployments.service';
import { LocalRunSlots } from '../../local-run-slots';
import { LocalWorkflowRuns } from '../../local-workflow-runs';
import { SyncRunWaiters } from '../../sync-run-waiters';
import { WorkflowRunAdmission, type AdmittedRun } from '../../workflow-run-admission';
import { WorkflowRunSettlement } from '../../workflow-run-settlement';
import type { StepFinished } from '../../../engine/workflow-engine';
import { checkInputs } from './check-inputs';

/** A workflow run to start, whoever starts it (an invoke over NATS; later a schedule, an experiment). */
export interface StartWorkflowRunInput {
  /** The run's request id (`req_…`, made by whoever accepted the run), also its public token. */
  requestId: string;
  workspaceId: string;
  /** What runs: the deployment's variant by name, at its current version. */
  deployment: string;
  variant: string;
  /** Values of the variant's declared inputs (checked against them here). */
  inputs: Record<string, unknown>;
  /**
   * Null: a sync run, answered with its output (or failure) when it ends, within the wait.
   * Otherwise an async run, answered at once; its result goes to `callbackUrl` (none when null).
   */
  async: { callbackUrl: string | null } | null;
  metadata: FlatMetadata;
  user: string | null;
  /** The surface that asked for the run (`mcp`); null for the native route. */
  surface: RunSurface | null;
  /**
   * Told each step of the run as it finishes (an MCP client's progress), when the run executes
   * here, as a sync run does; a run handed to the queue goes without.
   */
  onStepFinished?: StepFinished;
  /** The workspace plan's values the run is accepted under (null: unlimited). */
  limits: { concurrency: number | null; stepsPerRun: number | null; toolCallsPerDay: number | null };
}

/**
 * Starts a workflow run: resolves the variant's current version, checks the inputs against it,
 * admits the run under the workspace's concurrency cap (its row written before anything runs),
 * then executes it here (a sync run always; an async one while this replica has a local slot)
 * or hands it to the `workflow-runs` queue. An async run is answered at once with its status
 * and the deployment's webhook secret; a sync one with its result, or a 504 naming the request
 * id when it outlasts the wait (it goes on, and can be looked up).
 */
@Injectable()
export class StartWorkflowRun {
  constructor(
    private readonly deployments: WorkflowDeploymentsService,
    private readonly slots: LocalRunSlots,
    private readonly admission: WorkflowRunAdmission,
    private readonly local: LocalWorkflowRuns,
    private readonly settlement: WorkflowRunSettlement,
    private readonly waiters: SyncRunWaiters,
  ) {}

  async start(input: StartWorkflowRunInput): Promise<WorkflowInvokeResponse> {
    const workflow = await this.deployments.resolve(input.workspaceId, input.deployment, input.variant);
    checkInputs(workflow.definition, input.inputs);
    const runAsync = input.async !== null;
    const here = this.slots.take(runAsync);
    let admitted: AdmittedRun;
    try {
      admitted = await this.admission.admit(
        {
          requestId: input.requestId,
          workspaceId: input.workspaceId,
          workflow,
          inputs: input.inputs,
          runAsync,
          callbackUrl: input.async?.callbackUrl ?? null,
          metadata: input.metadata,
          user: input.user,
          surface: input.surface,
          limits: input.limits,
        },
        here,
      );
    } catch (error) {
      if (here) this.slots.release();
      throw error;
    }
    // Only a run admitted `running` executes at once; a queued one waits for a slot of the workspace.
    if (here && admitted.status !== 'running') this.slots.release();
    const { run } = admitted;
    if (runAsync) {
      if (admitted.status === 'running') {
        if (here) void this.local.start(run);
        else await this.settlement.enqueue(run);
      }
      return { request_id: input.requestId, run_status: admitted.status, webhook_secret: workflow.webhookSecret() };
    }
    if (!here) {
      // Shutting down: the run goes to the queue, and its end is awaited as announced.
      await this.settlement.enqueue(run);
      return this.waiters.answer(input.requestId, Promise.resolve(null));
    }
    // The run goes on when the caller stops waiting (the answer's time-out).
    return this.waiters.answer(input.requestId, this.local.start(run, input.onStepFinished));
  }
}
