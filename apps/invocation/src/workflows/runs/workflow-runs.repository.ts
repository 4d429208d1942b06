import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FlatMetadata, WorkflowStepRecordView } from '@waggle/contracts';
import type { RowOf } from '@waggle/database';
import { errorMessage, type NestedMessage } from '@waggle/errors';
import type { DataSource, EntityManager } from 'typeorm';
import type { WorkflowVersionIdentity } from '../deployments/workflow-resolution.cache';
import type { WorkflowRunEntity } from './workflow-run.entity';
import type { WorkflowStepRunEntity } from './workflow-step-run.entity';

const T_RUNS = '"invocation"."workflow_runs"';
const T_STEPS = '"invocation"."workflow_step_runs"';

/**
 * A run row as the engine reads it (plain SQL: the run path uses no ORM), derived from the
 * entity so a renamed or retyped column breaks compilation (see RowOf).
 */
export type WorkflowRunRow = RowOf<WorkflowRunEntity, 'steps'>;

/** A run to admit: the version it executes (as resolved or pinned) and what the caller asked. */
export interface NewWorkflowRun extends WorkflowVersionIdentity {
  id: string;
  workspaceId: string;
  runAsync: boolean;
  inputs: Record<string, unknown>;
  callbackUrl: string | null;
  metadata: FlatMetadata;
  user: string | null;
  concurrencyLimit: number | null;
  stepLimit: number | null;
  toolCallLimit: number | null;
}

/** What admission decided. `refused`: a sync run over the cap (nothing written). */
export type Admission = { status: 'running' | 'queued'; run: WorkflowRunRow } | { status: 'refused' };

/** A step record as `steps` selects it (derived from the entity, see RowOf). */
export type StepRecordRow = Omit<RowOf<WorkflowStepRunEntity, 'run'>, 'id' | 'run_id'>;

export interface StepStart {
  runId: string;
  key: string;
  stepId: string;
  type: string;
  iteration: number | null;
  inputs: unknown;
}

export interface StepEnd {
  runId: string;
  key: string;
  status: 'completed' | 'failed';
  output: unknown;
  error: string | null;
  errorCode: string | null;
  tokens: number;
  modelCalls: number;
}

export interface TerminalState {
  status: 'completed' | 'failed' | 'cancelled';
  output: string | null;
  /** The English text (the run view's `error_message`). */
  errorMessage: string | null;
  /** The same failure as a message id, rendered in the reader's language (null: English only). */
  errorDetail?: NestedMessage | null;
  errorCode: string | null;
  stepsExecuted?: number;
  totalTokens?: number;
}

/** A failure's stored text: its English message and, when it has one, its message id. */
export function failureState(text: NestedMessage | { english: string }): Pick<TerminalState, 'errorMessage' | 'errorDetail'> {
  return 'english' in text
    ? { errorMessage: text.english, errorDetail: null }
    : { errorMessage: errorMessage(text, 'en'), errorDetail: text };
}

/** The runs a terminal move started, and the run it ended (null when it was already terminal). */
export interface Finished {
  run: WorkflowRunRow | null;
  promoted: WorkflowRunRow[];
}

/**
 * The concurrency slots of a workspace are its `running` rows: every admission, finish and
 * promotion takes the workspace's advisory lock inside its transaction, so counting and changing
 * them is atomic across replicas, and nothing but the database holds the count.
 */
const lockSlots = (manager: EntityManager, workspaceId: string) =>
  manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`workflow-slots:${workspaceId}`]);

/** Every query of workflow runs and their step records, in plain SQL. */
@Injectable()
export class WorkflowRunsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Admits a run: `running` when the workspace has a free slot, else `queued` (async) or
   * refused (sync). The row exists before anything of the run executes.
   */
  admit(run: NewWorkflowRun): Promise<Admission> {
    return this.dataSource.transaction(async (manager) => {
      await lockSlots(manager, run.workspaceId);
      // Queued runs go first: a new async run never overtakes them.
      const [{ running, queued }] = (await manager.query(
        `SELECT count(*) FILTER (WHERE run_status = 'running')::int AS running, count(*) FILTER (WHERE run_status = 'queued')::int AS queued
         FROM ${T_RUNS} WHERE workspace_id = $1 AND run_status IN ('queued', 'running')`,
        [run.workspaceId],
      )) as Array<{ running: number; queued: number }>;
      const free = run.concurrencyLimit === null || (running < run.concurrencyLimit && (queued === 0 || !run.runAsync));
      if (!free && !run.runAsync) return { status: 'refused' as const };
      const status = free ? 'running' : 'queued';
      const [row] = (await manager.query(
        `INSERT INTO ${T_RUNS} (id, workspace_id, deployment_id, deployment_name, variant_id, variant_name, version_id, version, run_status, run_async,
           start_inputs, callback_url, metadata, user_label, concurrency_limit, step_limit, tool_call_limit, started_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, CASE WHEN $9 = 'running' THEN statement_timestamp() END)
         RETURNING *`,
        [
          run.id,
          run.workspaceId,
          run.deploymentId,
          run.deploymentName,
          run.variantId,
          run.variantName,
          run.versionId,
          run.version,
          status,
          run.runAsync,
          JSON.stringify(run.inputs),
          run.callbackUrl,
          JSON.stringify(run.metadata),
          run.user,
          run.concurrencyLimit,
          run.stepLimit,
          run.toolCallLimit,
        ],
      )) as WorkflowRunRow[];
      return { status, run: row };
    });
  }

  async find(id: string): Promise<WorkflowRunRow | null> {
    const rows = (await this.dataSource.query(`SELECT * FROM ${T_RUNS} WHERE id = $1`, [id])) as WorkflowRunRow[];
    return rows[0] ?? null;
  }

  async findInWorkspace(workspaceId: string, id: string): Promise<WorkflowRunRow | null> {
    const rows = (await this.dataSource.query(`SELECT * FROM ${T_RUNS} WHERE id = $1 AND workspace_id = $2`, [
      id,
      workspaceId,
    ])) as WorkflowRunRow[];
    return rows[0] ?? null;
  }

  /**
   * A worker takes a running run: its lease, one more attempt, and the deadline on the first
   * take. null when the run is not `running` (finished, or failed by the reaper).
   */
  async claim(id: string, owner: string, leaseMs: number, timeoutMs: number): Promise<WorkflowRunRow | null> {
    const [rows] = (await this.dataSource.query(
      `UPDATE ${T_RUNS} SET lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3::float8 / 1000), attempts = attempts + 1,
         started_at = coalesce(started_at, now()), deadline_at = coalesce(deadline_at, coalesce(started_at, now()) + make_interval(secs => $4::float8 / 1000))
       WHERE id = $1 AND run_status = 'running' RETURNING *`,
      [id, owner, leaseMs, timeoutMs],
    )) as [WorkflowRunRow[], number];
    return rows[0] ?? null;
  }

  /** Renews the lease; false when the run is no longer this worker's (reaped, or taken over). */
  async heartbeat(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const [, count] = (await this.dataSource.query(
      `UPDATE ${T_RUNS} SET lease_expires_at = now() + make_interval(secs => $3::float8 / 1000) WHERE id = $1 AND lease_owner = $2 AND run_status = 'running'`,
      [id, owner, leaseMs],
    )) as [unknown, number];
    return count > 0;
  }

  /**
   * Moves a run to a terminal state (nothing leaves one: a run already terminal is left as it
   * is and `run` is null), frees its slot, and in the same transaction starts the workspace's
   * oldest queued runs that now fit.
   */
  finish(id: string, state: TerminalState): Promise<Finished> {
    return this.dataSource.transaction(async (manager) => {
      const [owner] = (await manager.query(`SELECT workspace_id FROM ${T_RUNS} WHERE id = $1`, [id])) as Array<{ workspace_id: string }>;
      if (!owner) return { run: null, promoted: [] };
      await lockSlots(manager, owner.workspace_id);
      const [rows] = (await manager.query(
        `UPDATE ${T_RUNS} SET run_status = $2, output_content = $3, error_message = $4, error_code = $5, ended_at = now(),
           steps_executed = coalesce($6, steps_executed), total_tokens = coalesce($7, total_tokens), error_detail = $8, lease_owner = NULL, lease_expires_at = NULL
         WHERE id = $1 AND run_status IN ('queued', 'running') RETURNING *`,
        [
          id,
          state.status,
          state.output,
          state.errorMessage,
          state.errorCode,
          state.stepsExecuted ?? null,
          state.totalTokens ?? null,
          state.errorDetail ? JSON.stringify(state.errorDetail) : null,
        ],
      )) as [WorkflowRunRow[], number];
      const promoted = await this.promote(manager, owner.workspace_id);
      return { run: rows[0] ?? null, promoted };
    });
  }

  /**
   * Starts queued runs of a workspace, oldest first, while slots are free (inside the slot lock).
   * Start times are taken under the lock (statement_timestamp), so they follow the start order.
   */
  private async promote(manager: EntityManager, workspaceId: string): Promise<WorkflowRunRow[]> {
    const [next] = (await manager.query(
      `SELECT concurrency_limit FROM ${T_RUNS} WHERE workspace_id = $1 AND run_status = 'queued' ORDER BY queue_seq LIMIT 1`,
      [workspaceId],
    )) as Array<{ concurrency_limit: number | null }>;
    if (!next) return [];
    const [{ running }] = (await manager.query(
      `SELECT count(*)::int AS running FROM ${T_RUNS} WHERE workspace_id = $1 AND run_status = 'running'`,
      [workspaceId],
    )) as Array<{ running: number }>;
    const free = next.concurrency_limit === null ? 1_000_000 : next.concurrency_limit - running;
    if (free <= 0) return [];
    const [rows] = (await manager.query(
      `UPDATE ${T_RUNS} SET run_status = 'running', started_at = statement_timestamp()
       WHERE id IN (SELECT id FROM ${T_RUNS} WHERE workspace_id = $1 AND run_status = 'queued' ORDER BY queue_seq LIMIT $2)
       RETURNING *`,
      [workspaceId, free],
    )) as [WorkflowRunRow[], number];
    return rows;
  }

  /** Queued runs of a workspace that could start now (a slot freed without a finish, e.g. a cap raised). */
  promoteQueued(workspaceId: string): Promise<WorkflowRunRow[]> {
    return this.dataSource.transaction(async (manager) => {
      await lockSlots(manager, workspaceId);
      return this.promote(manager, workspaceId);
    });
  }

  /**
   * Running runs that need the reaper, each with why: `deadline`, past the run time-out (counted
   * from its start, taken by a worker or not); `lease`, taken by a worker whose lease lapsed more
   * than `graceMs` ago (the worker died and no other took it over); `unclaimed`, started more than
   * `graceMs` ago but never taken (its job may be lost: it is queued again, not failed, since a
   * busy cluster may simply not have reached it yet).
   */
  async abandoned(
    graceMs: number,
    timeoutMs: number,
    limit = 100,
  ): Promise<Array<{ id: string; workspace_id: string; reason: 'lease' | 'deadline' | 'unclaimed' }>> {
    return (await this.dataSource.query(
      `SELECT id, workspace_id,
         CASE WHEN coalesce(deadline_at, started_at + make_interval(secs => $2::float8 / 1000)) < now() THEN 'deadline'
              WHEN lease_expires_at IS NULL THEN 'unclaimed' ELSE 'lease' END AS reason
       FROM ${T_RUNS}
       WHERE run_status = 'running' AND (coalesce(deadline_at, started_at + make_interval(secs => $2::float8 / 1000)) < now()
         OR coalesce(lease_expires_at, started_at) < now() - make_interval(secs => $1::float8 / 1000))
       ORDER BY started_at LIMIT $3`,
      [graceMs, timeoutMs, limit],
    )) as Array<{ id: string; workspace_id: string; reason: 'lease' | 'deadline' | 'unclaimed' }>;
  }

  /** Workspaces with queued runs and a free slot (a safety net for promotions whose jobs were lost). */
  async workspacesWithStartableRuns(): Promise<string[]> {
    const rows = (await this.dataSource.query(
      `SELECT DISTINCT q.workspace_id FROM ${T_RUNS} q WHERE q.run_status = 'queued'
         AND (q.concurrency_limit IS NULL OR q.concurrency_limit > (SELECT count(*) FROM ${T_RUNS} r WHERE r.workspace_id = q.workspace_id AND r.run_status = 'running'))`,
    )) as Array<{ workspace_id: string }>;
    return rows.map((row) => row.workspace_id);
  }

  async steps(runId: string): Promise<StepRecordRow[]> {
    return (await this.dataSource.query(
      `SELECT step_key, step_id, step_type, iteration, status, inputs, output, error, error_code, tokens, model_calls, attempts, started_at, ended_at, duration_ms
       FROM ${T_STEPS} WHERE run_id = $1 ORDER BY started_at, step_key`,
      [runId],
    )) as StepRecordRow[];
  }

  /** A step starts: its record is written (or, when a re-run job repeats an unfinished step, restarted). */
  async startStep(step: StepStart): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${T_STEPS} (run_id, step_key, step_id, step_type, iteration, status, inputs, started_at)
       VALUES ($1, $2, $3, $4, $5, 'running', $6, now())
       ON CONFLICT (run_id, step_key) DO UPDATE SET status = 'running', inputs = EXCLUDED.inputs, started_at = now(), ended_at = NULL,
         duration_ms = NULL, output = NULL, error = NULL, error_code = NULL, attempts = ${T_STEPS}.attempts + 1`,
      [step.runId, step.key, step.stepId, step.type, step.iteration, JSON.stringify(step.inputs ?? null)],
    );
  }

  async endStep(step: StepEnd): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${T_STEPS} SET status = $3, output = $4, error = $5, error_code = $6, tokens = $7, model_calls = $8, ended_at = now(),
         duration_ms = round(extract(epoch FROM now() - started_at) * 1000)::int
       WHERE run_id = $1 AND step_key = $2`,
      [step.runId, step.key, step.status, JSON.stringify(step.output ?? null), step.error, step.errorCode, step.tokens, step.modelCalls],
    );
  }
}

export function toStepRecordView(row: StepRecordRow): WorkflowStepRecordView {
  return {
    step_key: row.step_key,
    step_id: row.step_id,
    step_type: row.step_type,
    iteration: row.iteration,
    status: row.status,
    inputs: row.inputs,
    output: row.output,
    error: row.error,
    error_code: row.error_code,
    tokens: row.tokens,
    model_calls: row.model_calls,
    attempts: row.attempts,
    started_at: row.started_at.toISOString(),
    ended_at: row.ended_at?.toISOString() ?? null,
    duration_ms: row.duration_ms,
  };
}
