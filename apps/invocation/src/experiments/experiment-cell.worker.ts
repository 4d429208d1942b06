import { Inject, Injectable } from '@nestjs/common';
import { QueueNames, type DatasetRowView, type ExperimentCellJob, type RunCostFields } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, isTransientFailure, QueueProcessor, QueueWorker, type RequestContextStore } from '@waggle/platform';
import { RunCancelMarks } from '@waggle/runs';
import type { Job } from 'bullmq';
import { LRUCache } from 'lru-cache';
import type { InvocationEnv } from '../config/invocation.env';
import { PromptRunner } from '../prompt-runs/prompt-runner.service';
import { PromptResolutionCache } from '../prompts/prompt-resolution.cache';
import type { ResolvedPrompt } from '../prompts/prompts.repository';
import type { ExperimentCellEntity } from './entities/experiment-cell.entity';
import type { ExperimentRunEntity, StoredCandidate } from './entities/experiment-run.entity';
import { versionRows } from './dataset-rows';
import { inlinePrompt } from './experiment-candidates';
import { DatasetsService } from '../datasets/datasets.service';
import { CellEvaluators } from './evaluators/cell-evaluators';
import { endErrorOf, ExperimentRunSettlement, isTerminal } from './experiment-run-settlement';
import { ExperimentRunsRepository, type CellResult } from './experiment-runs.repository';

/**
 * Runs the cells of experiment runs (queue `experiment-cells`), each as a real prompt run
 * (PromptRunner.invoke: its own ledger record tagged `experiment_run_id`, usage, cost,
 * fallbacks, structured output, trace) of the version pinned when the run was created, then
 * its evaluators. A cell is written once, from `pending`: a job run again after a crash (its
 * lock lapsed and another replica took it) finds it written and only settles the run. A cancelled
 * run's remaining jobs, and a cell whose own request id was cancelled, run nothing.
 *
 * A dataset version's rows are immutable, so each replica keeps the few it is running in memory
 * rather than reading a row per cell.
 */
@Injectable()
@QueueProcessor(QueueNames.experimentCells)
export class ExperimentCellWorker extends QueueWorker<'experiment-cells'> {
  private readonly rowsByVersion = new LRUCache<string, Promise<DatasetRowView[] | null>>({ max: 4 });
  /** Evaluations are not aborted: a stopping replica lets them finish within its shutdown grace, as the cells' prompt runs. */
  private readonly neverAborted = new AbortController().signal;

  constructor(
    private readonly runs: ExperimentRunsRepository,
    private readonly runner: PromptRunner,
    private readonly resolutions: PromptResolutionCache,
    private readonly datasets: DatasetsService,
    private readonly evaluators: CellEvaluators,
    private readonly settlement: ExperimentRunSettlement,
    private readonly marks: RunCancelMarks,
    @Inject(APP_ENV) env: InvocationEnv,
  ) {
    super({
      queue: QueueNames.experimentCells,
      redisUrl: env.REDIS_URL,
      concurrency: env.EXPERIMENT_CELL_CONCURRENCY,
      lockMs: env.EXPERIMENT_CELL_LOCK_MS,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    });
  }

  protected contextOf(job: ExperimentCellJob): RequestContextStore {
    return { requestId: job.request_id, workspaceId: job.workspace_id };
  }

  protected async handle(job: Job<ExperimentCellJob>): Promise<void> {
    const { run_id: runId, cell_id: cellId } = job.data;
    // A run removed because it could not be queued, or ended (cancelled, failed): nothing to run.
    const run = await this.runs.byId(runId);
    if (!run || isTerminal(run.status)) return;
    const cell = await this.runs.cell(cellId);
    if (cell?.status === 'pending') await this.runCell(run, cell);
    await this.settlement.afterCell(runId);
  }

  /** A job out of attempts leaves its cell errored, not pending, so the run still ends. */
  protected override async onDeadLettered(job: Job<ExperimentCellJob>): Promise<void> {
    await this.runs.finishCell(job.data.cell_id, erroredResult(new WaggleException('internal_server_error'), null));
    await this.settlement.afterCell(job.data.run_id);
  }

  private async runCell(run: ExperimentRunEntity, cell: ExperimentCellEntity): Promise<void> {
    if (await this.marks.isMarked(cell.requestId)) {
      await this.runs.finishCell(cell.id, erroredResult(new WaggleException('run_cancelled'), null));
      return;
    }
    if (!(await this.runs.claimCell(cell.id))) return;
    await this.runs.startRun(run.id);
    const rows = await this.rowsOf(run);
    const row = rows?.[cell.rowIndex];
    if (row?.id !== cell.rowId) {
      await this.settlement.fail(run.id, new WaggleException('resource_not_found', { detail: 'experiment_dataset_gone' }));
      return;
    }
    const candidate = run.candidates.find((named) => named.name === cell.candidate) as StoredCandidate;
    await this.runs.finishCell(cell.id, await this.execute(run, candidate, cell, row));
  }

  /** The cell's prompt run and its evaluation; a refusal or a provider failure is the cell's error, an outage is retried. */
  private async execute(
    run: ExperimentRunEntity,
    candidate: StoredCandidate,
    cell: ExperimentCellEntity,
    row: DatasetRowView,
  ): Promise<CellResult> {
    let cost: RunCostFields | null = null;
    try {
      const prompt = await this.promptOf(run.workspaceId, candidate);
      const answer = await this.runner.invoke(
        {
          workspace_id: run.workspaceId,
          request_id: cell.requestId,
          deployment: prompt.deployment.name,
          variant: prompt.variant.name,
          inputs: row.inputs,
          metadata: { experiment_run_id: run.id },
        },
        prompt,
        undefined,
        (fields) => (cost = fields),
      );
      const latencyMs = Math.round(answer.duration * 1000);
      const costMicros = (cost as RunCostFields | null)?.cost_micros ?? null;
      const output = prompt.version.responseFormat ? parsedOrText(answer.response) : answer.response;
      const evaluations = await this.evaluators.evaluate(
        run.evaluators,
        { output, text: answer.response, expected_output: row.expected_output, latency_ms: latencyMs, cost_micros: costMicros },
        { workspaceId: run.workspaceId, experimentRunId: run.id, cellRequestId: cell.requestId, signal: this.neverAborted },
      );
      return {
        status: 'succeeded',
        output,
        error: null,
        latencyMs,
        usage: answer.usage as unknown as Record<string, unknown>,
        costMicros,
        evaluations,
        passed: evaluations.every((evaluation) => evaluation.passed),
      };
    } catch (error) {
      if (!(error instanceof WaggleException) || isTransientFailure(error)) throw error;
      return erroredResult(error, cost);
    }
  }

  /** A saved candidate's version exactly as pinned at creation; an inline one's from the run itself. */
  private promptOf(workspaceId: string, candidate: StoredCandidate): Promise<ResolvedPrompt> {
    if (candidate.inline_version) {
      return Promise.resolve(inlinePrompt(workspaceId, candidate.inline_id as string, candidate.name, candidate.inline_version));
    }
    return this.resolutions.pinned({
      workspaceId,
      deploymentId: candidate.deployment_id as string,
      variantId: candidate.variant_id as string,
      versionId: candidate.version_id as string,
    });
  }

  /** The version's rows, or null when it is gone (the dataset was deleted under the run). */
  private rowsOf(run: ExperimentRunEntity): Promise<DatasetRowView[] | null> {
    const key = `${run.workspaceId}/${run.datasetId}/${run.datasetVersion}`;
    let rows = this.rowsByVersion.get(key);
    if (!rows) {
      rows = versionRows(this.datasets, run.workspaceId, run.datasetId, run.datasetVersion);
      this.rowsByVersion.set(key, rows);
      // A failed load (an outage) is not kept: the next cell reads again.
      rows.then(
        (loaded) => loaded ?? this.rowsByVersion.delete(key),
        () => this.rowsByVersion.delete(key),
      );
    }
    return rows;
  }
}

function erroredResult(error: WaggleException, cost: RunCostFields | null): CellResult {
  return {
    status: 'errored',
    output: null,
    error: endErrorOf(error),
    latencyMs: null,
    usage: null,
    costMicros: cost?.cost_micros ?? null,
    evaluations: [],
    passed: false,
  };
}

/** A structured output's JSON, parsed; text that is not JSON stays text (the evaluators judge it). */
function parsedOrText(response: string): unknown {
  try {
    return JSON.parse(response) as unknown;
  } catch {
    return response;
  }
}
