import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { EvaluationResult, ExperimentCellStatus } from '@waggle/contracts';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import { In, type DataSource, type FindOptionsWhere } from 'typeorm';
import { SCHEMA } from '../database/data-source';
import { ExperimentCellEntity } from './entities/experiment-cell.entity';
import { ExperimentRunEntity } from './entities/experiment-run.entity';
import type { GateEvidence } from './release-evidence';

const RUNS = `"${SCHEMA}"."experiment_runs"`;
const CELLS = `"${SCHEMA}"."experiment_cells"`;

/** A cell waiting to be written, with what its job needs. */
export type NewCell = Pick<ExperimentCellEntity, 'rowId' | 'rowIndex' | 'candidate' | 'candidateIndex' | 'requestId'>;

/** What a cell's end writes. */
export interface CellResult {
  status: Exclude<ExperimentCellStatus, 'pending'>;
  output: unknown;
  error: { code: string; message: string } | null;
  latencyMs: number | null;
  usage: Record<string, unknown> | null;
  costMicros: number | null;
  evaluations: EvaluationResult[];
  passed: boolean;
}

/** Cells per INSERT: well under PostgreSQL's 65,535 parameters. */
const INSERT_BATCH = 1_000;

const SQL = defineSql(__filename, {
  /**
   * A page of the workspace's runs, newest first: the ids after `before`'s in the order
   * (created_at, then id, so runs created in the same microsecond keep their place; an id not of
   * the workspace answers no rows), compared in the database at its full timestamp precision.
   */
  pageIds: sql<{ id: string }>(`
    SELECT "id" FROM ${RUNS}
    WHERE "workspace_id" = $1
      AND ($3::text IS NULL OR ("created_at", "id") < (
        SELECT "created_at", "id" FROM ${RUNS} WHERE "id" = $3::text AND "workspace_id" = $1))
    ORDER BY "created_at" DESC, "id" DESC
    LIMIT $2`),
  /** Takes a cell for a worker (again, after a crash): only a pending cell is taken. */
  claimCell: sql<RowOf<ExperimentCellEntity, 'run'>>(`
    UPDATE ${CELLS} SET "started_at" = now()
    WHERE "id" = $1 AND "status" = 'pending'
    RETURNING *`),
  /** The first cell taken starts the run. */
  startRun: sql(`
    UPDATE ${RUNS} SET "status" = 'running', "started_at" = now()
    WHERE "id" = $1 AND "status" = 'queued'`),
  /** A cell is written once: a job run again after a crash finds it written and changes nothing. */
  finishCell: sql(`
    UPDATE ${CELLS}
    SET "status" = $2, "output" = $3, "error" = $4, "latency_ms" = $5, "usage" = $6, "cost_micros" = $7,
        "evaluations" = $8, "passed" = $9, "finished_at" = now()
    WHERE "id" = $1 AND "status" = 'pending'`),
  /** The run, locked until the end of the transaction that ends it. */
  lockRun: sql<RowOf<ExperimentRunEntity>>(`
    SELECT * FROM ${RUNS} WHERE "id" = $1 FOR UPDATE`),
  /** Whether any cell of the run is still pending. */
  anyPending: sql<{ pending: boolean }>(`
    SELECT EXISTS (SELECT 1 FROM ${CELLS} WHERE "run_id" = $1 AND "status" = 'pending') AS "pending"`),
  /** Ends a run's pending cells (a cancel, a run that cannot go on), answering the request ids of those a worker had taken. */
  endPendingCells: sql<{ request_id: string; started: boolean }>(`
    UPDATE ${CELLS}
    SET "status" = 'errored', "error" = $2, "passed" = false, "finished_at" = now()
    WHERE "run_id" = $1 AND "status" = 'pending'
    RETURNING "request_id", "started_at" IS NOT NULL AS "started"`),
  /** A pending cell no worker has taken, cancelled by its own request id in its workspace: answers its run's id. */
  cancelWaitingCell: sql<{ run_id: string }>(`
    UPDATE ${CELLS}
    SET "status" = 'errored', "error" = $3, "passed" = false, "finished_at" = now()
    WHERE "request_id" = $1 AND "workspace_id" = $2 AND "status" = 'pending' AND "started_at" IS NULL
    RETURNING "run_id"`),
  /** Cells per run and status. */
  countCells: sql<{ run_id: string; status: ExperimentCellStatus; cells: number }>(`
    SELECT "run_id", "status", count(*)::int AS "cells"
    FROM ${CELLS}
    WHERE "run_id" = ANY($1)
    GROUP BY "run_id", "status"`),
  /**
   * The release gate's evidence: the completed runs of the workspace finished since $3 that had
   * version $2 as an active candidate, that candidate's pass rate, best first then newest.
   */
  bestEvidence: sql<{ id: string; pass_rate: number; finished_at: Date }>(`
    SELECT r."id", (s.summary ->> 'pass_rate')::double precision AS "pass_rate", r."finished_at"
    FROM ${RUNS} r
    CROSS JOIN LATERAL jsonb_array_elements(r."candidates") AS c(candidate)
    CROSS JOIN LATERAL jsonb_array_elements(r."summary") AS s(summary)
    WHERE r."workspace_id" = $1
      AND r."status" = 'completed'
      AND r."finished_at" >= $3
      AND c.candidate ->> 'version_id' = $2
      AND (c.candidate ->> 'active')::boolean
      AND s.summary ->> 'candidate' = c.candidate ->> 'name'
    ORDER BY "pass_rate" DESC, r."finished_at" DESC
    LIMIT 1`),
});

/** Experiment runs and their cells. */
@Injectable()
export class ExperimentRunsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The run and every cell, in one transaction: a run is never seen without its cells. */
  async create(run: Omit<ExperimentRunEntity, 'createdAt' | 'startedAt' | 'finishedAt' | 'summary' | 'error'>, cells: NewCell[]) {
    return this.transaction(async () => {
      const runs = this.table(ExperimentRunEntity);
      const saved = await runs.save(runs.create({ ...run, summary: [], error: null, startedAt: null, finishedAt: null }));
      const table = this.table(ExperimentCellEntity);
      const rows = cells.map((cell) => ({ ...cell, runId: run.id, workspaceId: run.workspaceId, status: 'pending' as const }));
      const ids: string[] = [];
      for (let start = 0; start < rows.length; start += INSERT_BATCH) {
        const inserted = await table.insert(rows.slice(start, start + INSERT_BATCH));
        ids.push(...inserted.identifiers.map((identifier) => identifier.id as string));
      }
      return { run: saved, cellIds: ids };
    });
  }

  /** Removes a run that could not be queued (its cells go with it). */
  async remove(runId: string): Promise<void> {
    await this.table(ExperimentRunEntity).delete({ id: runId });
  }

  find(workspaceId: string, runId: string): Promise<ExperimentRunEntity | null> {
    return this.table(ExperimentRunEntity).findOneBy({ workspaceId, id: runId });
  }

  byId(runId: string): Promise<ExperimentRunEntity | null> {
    return this.table(ExperimentRunEntity).findOneBy({ id: runId });
  }

  /** The workspace's runs, newest first; the page after `before` when it is given. */
  async list(workspaceId: string, take: number, before?: string): Promise<ExperimentRunEntity[]> {
    const ids = (await this.rows(SQL.pageIds, [workspaceId, take, before ?? null])).map((row) => row.id);
    if (ids.length === 0) return [];
    const byId = new Map((await this.table(ExperimentRunEntity).findBy({ id: In(ids) })).map((run) => [run.id, run]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  cell(cellId: string): Promise<ExperimentCellEntity | null> {
    return this.table(ExperimentCellEntity).findOneBy({ id: cellId });
  }

  /** Takes a pending cell; null when it was written already. */
  async claimCell(cellId: string): Promise<boolean> {
    return (await this.execute(SQL.claimCell, [cellId])) > 0;
  }

  async startRun(runId: string): Promise<void> {
    await this.execute(SQL.startRun, [runId]);
  }

  /** Writes a pending cell's end; false when it was written already (a repeated job, a cancel). */
  async finishCell(cellId: string, result: CellResult): Promise<boolean> {
    const written = await this.execute(SQL.finishCell, [
      cellId,
      result.status,
      JSON.stringify(result.output ?? null),
      result.error && JSON.stringify(result.error),
      result.latencyMs,
      result.usage && JSON.stringify(result.usage),
      result.costMicros,
      JSON.stringify(result.evaluations),
      result.passed,
    ]);
    return written > 0;
  }

  /**
   * Ends the run if `end` says so, inside one transaction holding the run's row: `end` sees the
   * run as locked and whether cells are pending, and answers the run's new state, or null to leave it.
   */
  async endRun(
    runId: string,
    end: (run: ExperimentRunEntity, pending: boolean) => Promise<Partial<ExperimentRunEntity> | null>,
  ): Promise<ExperimentRunEntity | null> {
    return this.transaction(async () => {
      const locked = await this.row(SQL.lockRun, [runId]);
      if (!locked) return null;
      const run = await this.table(ExperimentRunEntity).findOneByOrFail({ id: runId });
      const pending = (await this.row(SQL.anyPending, [runId]))?.pending ?? false;
      const changes = await end(run, pending);
      if (!changes) return run;
      return this.table(ExperimentRunEntity).save({ ...run, ...changes });
    });
  }

  /** Ends the run's pending cells with `error`; answers the request ids of those a worker had taken. */
  async endPendingCells(runId: string, error: { code: string; message: string }): Promise<string[]> {
    const rows = await this.rows(SQL.endPendingCells, [runId, JSON.stringify(error)]);
    return rows.filter((row) => row.started).map((row) => row.request_id);
  }

  /** Cancels a pending cell no worker has taken, by its request id; answers its run's id, or null. */
  async cancelWaitingCell(workspaceId: string, requestId: string, error: { code: string; message: string }): Promise<string | null> {
    return (await this.row(SQL.cancelWaitingCell, [requestId, workspaceId, JSON.stringify(error)]))?.run_id ?? null;
  }

  /** Every cell of a run with what its summary reads. */
  summaryCells(runId: string): Promise<ExperimentCellEntity[]> {
    return this.table(ExperimentCellEntity).find({
      select: {
        rowId: true,
        candidate: true,
        status: true,
        latencyMs: true,
        usage: true,
        costMicros: true,
        evaluations: true,
        passed: true,
      },
      where: { runId },
      order: { rowIndex: 'ASC', candidateIndex: 'ASC' },
    });
  }

  /** Cells per status of each run. */
  async counts(runIds: string[]): Promise<Map<string, Partial<Record<ExperimentCellStatus, number>>>> {
    const counts = new Map<string, Partial<Record<ExperimentCellStatus, number>>>();
    if (runIds.length === 0) return counts;
    for (const row of await this.rows(SQL.countCells, [runIds])) {
      counts.set(row.run_id, { ...counts.get(row.run_id), [row.status]: row.cells });
    }
    return counts;
  }

  /** A page of a run's cells in row then candidate order, and how many match. */
  cellsPage(
    runId: string,
    filter: { candidate?: string; status?: ExperimentCellStatus },
    skip: number,
    take: number,
  ): Promise<[ExperimentCellEntity[], number]> {
    const where: FindOptionsWhere<ExperimentCellEntity> = { runId, ...filter };
    return this.table(ExperimentCellEntity).findAndCount({ where, order: { rowIndex: 'ASC', candidateIndex: 'ASC' }, skip, take });
  }

  async bestEvidence(workspaceId: string, versionId: string, since: Date): Promise<GateEvidence | null> {
    const row = await this.row(SQL.bestEvidence, [workspaceId, versionId, since]);
    return row && { experiment_run_id: row.id, pass_rate: row.pass_rate, finished_at: new Date(row.finished_at).toISOString() };
  }
}
