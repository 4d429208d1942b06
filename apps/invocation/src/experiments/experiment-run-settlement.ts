import { Injectable, Logger } from '@nestjs/common';
import { TERMINAL_RUN_STATUSES, type ExperimentCandidateSummary, type ExperimentRunStatus } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { RunCancellation } from '@waggle/runs';
import type { ExperimentRunEntity } from './entities/experiment-run.entity';
import { ExperimentRunsRepository } from './experiment-runs.repository';
import { summarize } from './experiment-summary';

/** The catalog code and message a cell or a run ends with. */
export interface EndError {
  code: string;
  message: string;
}

export function endErrorOf(error: WaggleException): EndError {
  return { code: error.code, message: error.message };
}

export const isTerminal = (status: ExperimentRunStatus) => TERMINAL_RUN_STATUSES.includes(status);

/**
 * How a run ends, each inside one transaction holding the run's row, so two replicas ending the
 * last two cells at once, or a cancel racing the last cell, end it once: `completed` once no cell
 * is pending (every cell errored still completes, with a pass rate of 0); `cancelled` by a cancel;
 * `failed` when it cannot go on. Each stores the candidates' summary the release gate reads.
 */
@Injectable()
export class ExperimentRunSettlement {
  private readonly logger = new Logger(ExperimentRunSettlement.name);

  constructor(
    private readonly runs: ExperimentRunsRepository,
    private readonly cancellation: RunCancellation,
  ) {}

  /** After a cell was written (or found written): the run completes when it was the last. */
  async afterCell(runId: string): Promise<void> {
    const ended = await this.runs.endRun(runId, async (run, pending) => {
      if (isTerminal(run.status) || pending) return null;
      return { status: 'completed', finishedAt: new Date(), startedAt: run.startedAt ?? new Date(), summary: await this.summary(run) };
    });
    if (ended?.status === 'completed' && ended.finishedAt) this.logger.log({ msg: 'experiment run completed', experiment_run_id: runId });
  }

  /**
   * Cancels the run: its pending cells end `errored` with run_cancelled, and the prompt runs of
   * the cells a worker had taken are stopped wherever they run (their cells stay as written here).
   * Answers the run's status after it (a run already ended keeps its own).
   */
  async cancel(runId: string): Promise<ExperimentRunStatus | null> {
    const cancelled = new WaggleException('run_cancelled');
    let taken: string[] = [];
    const run = await this.runs.endRun(runId, async (locked) => {
      if (isTerminal(locked.status)) return null;
      taken = await this.runs.endPendingCells(runId, endErrorOf(cancelled));
      return { status: 'cancelled', finishedAt: new Date(), summary: await this.summary(locked) };
    });
    for (const requestId of taken) this.cancellation.cancelElsewhere(requestId);
    if (run) this.logger.log({ msg: 'experiment run cancel requested', experiment_run_id: runId, running_cells: taken.length });
    return run?.status ?? null;
  }

  /** A run that cannot go on (its dataset version is gone): failed, its pending cells errored with the reason. */
  async fail(runId: string, error: WaggleException): Promise<void> {
    let taken: string[] = [];
    await this.runs.endRun(runId, async (locked) => {
      if (isTerminal(locked.status)) return null;
      taken = await this.runs.endPendingCells(runId, endErrorOf(error));
      return { status: 'failed', finishedAt: new Date(), error: endErrorOf(error), summary: await this.summary(locked) };
    });
    for (const requestId of taken) this.cancellation.cancelElsewhere(requestId);
    this.logger.warn({ msg: 'experiment run failed', experiment_run_id: runId, error_code: error.code });
  }

  /** The candidates' results from the run's cells as they are now. */
  async summary(run: ExperimentRunEntity): Promise<ExperimentCandidateSummary[]> {
    const cells = await this.runs.summaryCells(run.id);
    return summarize(
      {
        candidates: run.candidates.filter((candidate) => candidate.active).map((candidate) => candidate.name),
        baseline: run.baseline,
        minPassRate: run.minPassRate,
      },
      cells,
    );
  }
}
