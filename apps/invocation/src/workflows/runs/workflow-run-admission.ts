import { Injectable } from '@nestjs/common';
import type { FlatMetadata, RunSurface } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { requestContext } from '@waggle/platform';
import { LedgerPublisher } from '@waggle/runs';
import type { PinnedWorkflow } from '../deployments/workflow-resolution.cache';
import { ledgerRecordOf } from './workflow-run-mappers';
import { WorkflowRunExecutor } from './workflow-run.executor';
import { WorkflowRunsRepository, type NewWorkflowRun, type WorkflowRunRow } from './workflow-runs.repository';

/** What a run is admitted with: who asked, for which version, with what, under which limits. */
export interface RunToAdmit {
  requestId: string;
  workspaceId: string;
  workflow: PinnedWorkflow;
  inputs: Record<string, unknown>;
  runAsync: boolean;
  callbackUrl: string | null;
  metadata: FlatMetadata;
  user: string | null;
  surface: RunSurface | null;
  limits: { concurrency: number | null; stepsPerRun: number | null; toolCallsPerDay: number | null };
}

/** An admitted run: executing (`running`) or waiting for a slot (`queued`, async runs only). */
export interface AdmittedRun {
  status: 'running' | 'queued';
  run: WorkflowRunRow;
}

/**
 * Admission under the workspace's concurrency cap (decisions: workflow concurrency): the run's
 * row is written, `running` or `queued`, before anything of it executes, and recorded in the
 * ledger. A sync run over the cap is refused (429 `concurrency_limit_reached`, nothing written).
 * Async runs arriving together are admitted together (WorkflowRunsRepository.admitAsync).
 */
@Injectable()
export class WorkflowRunAdmission {
  constructor(
    private readonly runs: WorkflowRunsRepository,
    private readonly executor: WorkflowRunExecutor,
    private readonly ledger: LedgerPublisher,
  ) {}

  /** Admits the run; `here`: it executes on this replica at once, which takes its lease now. */
  async admit(run: RunToAdmit, here: boolean): Promise<AdmittedRun> {
    const lease = here ? this.executor.lease() : null;
    const row = newRunOf(run);
    const admission = run.runAsync ? await this.runs.admitAsync(row, lease) : await this.runs.admit(row, lease);
    // decisions: the concurrency-cap 429 carries `error` only.
    if (admission.status === 'refused') throw new WaggleException('concurrency_limit_reached', { detail: 'workflow_concurrency_reached' });
    this.ledger.save(ledgerRecordOf(admission.run));
    return admission;
  }
}

function newRunOf(run: RunToAdmit): NewWorkflowRun {
  const { workflow, limits } = run;
  return {
    id: run.requestId,
    workspaceId: run.workspaceId,
    deploymentId: workflow.deploymentId,
    deploymentName: workflow.deploymentName,
    variantId: workflow.variantId,
    variantName: workflow.variantName,
    versionId: workflow.versionId,
    version: workflow.version,
    runAsync: run.runAsync,
    inputs: run.inputs,
    callbackUrl: run.runAsync ? run.callbackUrl : null,
    metadata: run.metadata,
    user: run.user,
    surface: run.surface,
    // Kept on the run: its steps may execute on another replica, after the request's context is gone.
    creditsExhausted: requestContext.get()?.creditsExhausted === true,
    concurrencyLimit: limits.concurrency,
    stepLimit: limits.stepsPerRun,
    toolCallLimit: limits.toolCallsPerDay,
  };
}
