import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  EXPERIMENT_CELLS_PAGE_DEFAULT,
  QueueNames,
  type CancelledRun,
  type ExperimentCandidateSpec,
  type ExperimentCandidateView,
  type ExperimentCellsFilter,
  type ExperimentCellsPage,
  type ExperimentCellStatus,
  type ExperimentCellView,
  type ExperimentRunDefinition,
  type ExperimentRunView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, describeFailure, enqueueBulk, newRequestId, type JobQueue } from '@waggle/platform';
import type { InvocationEnv } from '../config/invocation.env';
import type { ExperimentCellEntity } from './entities/experiment-cell.entity';
import type { ExperimentRunEntity, StoredCandidate } from './entities/experiment-run.entity';
import { ExperimentCandidates } from './experiment-candidates';
import { DatasetsService } from '../datasets/datasets.service';
import { versionRows } from './dataset-rows';
import { CellEvaluators } from './evaluators/cell-evaluators';
import { endErrorOf, ExperimentRunSettlement, isTerminal } from './experiment-run-settlement';
import { ExperimentRunsRepository, type NewCell } from './experiment-runs.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Counts = Partial<Record<ExperimentCellStatus, number>>;

const runNotFound = () => new WaggleException('resource_not_found', { detail: 'experiment_run_not_found' });

/**
 * Experiment runs (the spec's decisions: experiment runs, results): created after everything that
 * can refuse them has (candidate types, the evaluators, the dataset version, the cell cap, every
 * active candidate), written with their cells in one transaction and queued in one `addBulk`; read
 * back with their counts and per-candidate summary; cancelled through the run-cancellation route.
 */
@Injectable()
export class ExperimentRunsService {
  private readonly logger = new Logger(ExperimentRunsService.name);

  constructor(
    private readonly runs: ExperimentRunsRepository,
    private readonly candidates: ExperimentCandidates,
    private readonly datasets: DatasetsService,
    private readonly evaluators: CellEvaluators,
    private readonly settlement: ExperimentRunSettlement,
    @InjectQueue(QueueNames.experimentCells) private readonly queue: JobQueue<'experiment-cells'>,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {}

  async create(workspaceId: string, definition: ExperimentRunDefinition): Promise<ExperimentRunView> {
    refuseOtherTypes(definition.candidates);
    checkCandidates(definition);
    const evaluators = await this.evaluators.check(definition.evaluators);
    const version = UUID.test(definition.dataset)
      ? await this.datasets.version(workspaceId, definition.dataset, definition.dataset_version)
      : null;
    const versionGone = () =>
      new WaggleException('resource_not_found', { detail: 'dataset_version_not_found', params: { version: definition.dataset_version } });
    if (!version) throw versionGone();
    const activeCount = definition.candidates.filter((candidate) => candidate.active ?? true).length;
    const cellCount = version.row_count * activeCount;
    if (cellCount > this.env.EXPERIMENT_CELL_LIMIT)
      throw new WaggleException('experiment_run_result_limit_exceeded', {
        detail: 'experiment_run_cells_over_limit',
        params: { cells: cellCount, limit: this.env.EXPERIMENT_CELL_LIMIT },
      });
    const rows = await versionRows(this.datasets, workspaceId, definition.dataset, definition.dataset_version);
    if (!rows) throw versionGone();
    const { candidates, problems } = await this.candidates.resolve(workspaceId, definition.candidates, rows);
    if (problems.length > 0) throw new WaggleException('experiment_run_unsupported_candidates', { details: problems });

    const runId = newRequestId();
    const active = candidates.filter((candidate) => candidate.active);
    const cells: NewCell[] = rows.flatMap((row, rowIndex) =>
      active.map((candidate, candidateIndex) => ({
        rowId: row.id,
        rowIndex,
        candidate: candidate.name,
        candidateIndex,
        requestId: newRequestId(),
      })),
    );
    const { run, cellIds } = await this.runs.create(
      {
        id: runId,
        workspaceId,
        name: definition.name ?? null,
        status: 'queued',
        datasetId: definition.dataset,
        datasetVersion: definition.dataset_version,
        candidates,
        evaluators,
        baseline: definition.baseline ?? null,
        minPassRate: definition.min_pass_rate ?? 1,
        cellCount: cells.length,
      },
      cells,
    );
    await this.queueCells(run, cells, cellIds);
    if (cells.length === 0) await this.settlement.afterCell(runId);
    return this.get(workspaceId, runId);
  }

  /** The workspace's runs, newest first; `before` (a run id) gives the page of those older than it. */
  async list(workspaceId: string, limit = 100, before?: string): Promise<ExperimentRunView[]> {
    const runs = await this.runs.list(workspaceId, limit, before);
    const counts = await this.runs.counts(runs.map((run) => run.id));
    return runs.map((run) => runView(run, counts.get(run.id) ?? {}, run.summary));
  }

  /** One run; a run still going answers the summary of its cells so far. */
  async get(workspaceId: string, runId: string): Promise<ExperimentRunView> {
    const run = await this.runs.find(workspaceId, runId);
    if (!run) throw runNotFound();
    const counts = (await this.runs.counts([run.id])).get(run.id) ?? {};
    return runView(run, counts, isTerminal(run.status) ? run.summary : await this.settlement.summary(run));
  }

  async cells(workspaceId: string, runId: string, filter: ExperimentCellsFilter): Promise<ExperimentCellsPage> {
    const run = await this.runs.find(workspaceId, runId);
    if (!run) throw runNotFound();
    const offset = filter.offset ?? 0;
    const [cells, total] = await this.runs.cellsPage(
      run.id,
      {
        ...(filter.candidate !== undefined && { candidate: filter.candidate }),
        ...(filter.status !== undefined && { status: filter.status }),
      },
      offset,
      filter.limit ?? EXPERIMENT_CELLS_PAGE_DEFAULT,
    );
    const next = offset + cells.length;
    return { cells: cells.map(cellView), total, next_offset: cells.length > 0 && next < total ? next : null };
  }

  /**
   * The run-cancellation route's question about an id no ledger record has (RunCanceller): a run
   * of the workspace is cancelled (one already ended answers its status), and a cell no worker has
   * taken yet ends `errored` with run_cancelled. Null when the id is neither (another workspace's
   * included), or a cell already taken, whose prompt run is cancelled as any run is.
   */
  async cancel(workspaceId: string, requestId: string): Promise<CancelledRun | null> {
    const run = await this.runs.find(workspaceId, requestId);
    if (run) {
      const status = isTerminal(run.status) ? run.status : ((await this.settlement.cancel(run.id)) ?? run.status);
      return { request_id: requestId, run_status: status };
    }
    const cellRun = await this.runs.cancelWaitingCell(workspaceId, requestId, endErrorOf(new WaggleException('run_cancelled')));
    if (!cellRun) return null;
    await this.settlement.afterCell(cellRun);
    return { request_id: requestId, run_status: 'cancelled' };
  }

  /**
   * One job per cell, in one `addBulk`, each by its cell's request id (a repeat adds nothing). A
   * queue that refuses leaves nothing behind: the run and its cells are removed, and the caller is
   * told to try again (503, Retry-After).
   */
  private async queueCells(run: ExperimentRunEntity, cells: NewCell[], cellIds: string[]): Promise<void> {
    if (cells.length === 0) return;
    try {
      await enqueueBulk(
        this.queue,
        cells.map((cell, index) => ({
          jobId: cell.requestId,
          data: { workspace_id: run.workspaceId, run_id: run.id, cell_id: cellIds[index], request_id: cell.requestId },
        })),
      );
    } catch (error) {
      // One line: a refused script's error carries the whole script and every job's data.
      this.logger.error({ error: describeFailure(error), experiment_run_id: run.id }, 'an experiment run could not be queued');
      await this.runs
        .remove(run.id)
        .catch((removal: unknown) =>
          this.logger.error({ err: removal, experiment_run_id: run.id }, 'an experiment run that could not be queued could not be removed'),
        );
      throw new WaggleException('experiment_run_start_failed');
    }
  }
}

/** A workflow or agent candidate is refused by name before anything else is looked at. */
function refuseOtherTypes(candidates: readonly ExperimentCandidateSpec[]): void {
  for (const candidate of candidates) {
    const type = candidate.workflow !== undefined ? 'workflow' : candidate.agent !== undefined ? 'agent' : candidate.type;
    if (type === 'workflow' || type === 'agent')
      throw new WaggleException('experiment_candidate_type_unsupported', {
        detail: 'experiment_candidate_type_named',
        params: { name: candidate.name, type },
      });
  }
}

/** What the body's shape cannot say: each candidate's source, unique names, a baseline among them, an active one. */
function checkCandidates(definition: ExperimentRunDefinition): void {
  const details: Array<{ field: string; messages: Array<{ detail: string; params?: Record<string, string> }> }> = [];
  definition.candidates.forEach((candidate, index) => {
    const field = `candidates[${index}]`;
    const saved = candidate.deployment !== undefined && candidate.variant !== undefined;
    const partial = candidate.deployment !== undefined || candidate.variant !== undefined;
    if (candidate.inline ? partial : !saved) details.push({ field, messages: [{ detail: 'experiment_candidate_source' }] });
    else if (candidate.inline && (candidate.version !== undefined || candidate.label !== undefined))
      details.push({ field, messages: [{ detail: 'experiment_candidate_inline_selector' }] });
    else if (candidate.version !== undefined && candidate.label !== undefined)
      details.push({ field, messages: [{ detail: 'experiment_candidate_version_and_label' }] });
  });
  if (details.length > 0) throw new WaggleException('validation_error', { details });
  const names = definition.candidates.map((candidate) => candidate.name);
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  if (repeated.length > 0)
    throw new WaggleException('validation_error', { detail: 'experiment_candidate_defined_twice', params: { names: repeated.join(', ') } });
  if (definition.baseline !== undefined && !names.includes(definition.baseline))
    throw new WaggleException('validation_error', { detail: 'experiment_baseline_unknown', params: { name: definition.baseline } });
  if (!definition.candidates.some((candidate) => candidate.active ?? true))
    throw new WaggleException('validation_error', { detail: 'experiment_no_active_candidate' });
}

function candidateView(candidate: StoredCandidate): ExperimentCandidateView {
  const { name, active, inline, deployment, variant, label, version, version_id, model } = candidate;
  return { name, active, inline, deployment, variant, label, version, version_id, model };
}

function runView(run: ExperimentRunEntity, counts: Counts, summary: ExperimentRunView['summary']): ExperimentRunView {
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    dataset_id: run.datasetId,
    dataset_version: run.datasetVersion,
    candidates: run.candidates.map(candidateView),
    evaluators: run.evaluators,
    baseline: run.baseline,
    min_pass_rate: run.minPassRate,
    counts: { cells: run.cellCount, pending: counts.pending ?? 0, succeeded: counts.succeeded ?? 0, errored: counts.errored ?? 0 },
    summary,
    error: run.error,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    finished_at: run.finishedAt?.toISOString() ?? null,
  };
}

export function cellView(cell: ExperimentCellEntity): ExperimentCellView {
  return {
    id: cell.id,
    row_id: cell.rowId,
    candidate: cell.candidate,
    status: cell.status,
    request_id: cell.requestId,
    output: cell.output ?? null,
    error: cell.error,
    latency_ms: cell.latencyMs,
    usage: cell.usage,
    cost_micros: cell.costMicros,
    evaluations: cell.evaluations,
    passed: cell.passed,
  };
}
