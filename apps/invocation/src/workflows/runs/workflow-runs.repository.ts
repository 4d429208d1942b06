import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FlatMetadata, RunCostFields, RunSurface, WorkflowStepRecordView } from '@waggle/contracts';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import { GroupCommit } from '@waggle/platform';
import { errorMessage, type NestedMessage } from '@waggle/errors';
import type { CostPart } from '@waggle/providers';
import type { DataSource } from 'typeorm';
import type { WorkflowVersionIdentity } from '../deployments/workflow-resolution.cache';
import type { WorkflowRunEntity } from './entities/workflow-run.entity';
import type { WorkflowStepRunEntity } from './entities/workflow-step-run.entity';

const T_RUNS = '"invocation"."workflow_runs"';
const T_STEPS = '"invocation"."workflow_step_runs"';
const T_SLOTS = '"invocation"."workflow_slots"';

/** Runs per batched statement (admissions, finishes): enough to absorb a burst, few enough to keep a statement short. */
const MAX_BATCH = 100;
/** Batched statements of one kind at once (the pool has 10 connections); runs arriving meanwhile leave together in the next. */
const MAX_IN_FLIGHT = 2;

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
  /** The surface that asked for the run (`mcp`); null for the native route. */
  surface: RunSurface | null;
  /** The request's context said the hosted credits are used up (kept on the run for its steps). */
  creditsExhausted: boolean;
  concurrencyLimit: number | null;
  stepLimit: number | null;
  toolCallLimit: number | null;
}

/** The lease an admission takes for a run its replica executes at once. */
export interface RunLease {
  owner: string;
  leaseMs: number;
  timeoutMs: number;
}

/** What a worker's claim found: the run taken, held by a live lease, or no longer running. */
export type Claim = { state: 'taken'; run: WorkflowRunRow } | { state: 'leased'; waitMs: number } | { state: 'gone' };

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
  /** A model step's calls (D41): every attempt, when a fallback could answer or it took more than one. */
  modelAttempts?: unknown[] | null;
  /** What the step's own model calls cost, unrounded (none: a step that called no model). */
  cost?: CostPart;
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
  /** What the workflow's own model calls cost (see WorkflowRunEntity.costMicros). */
  cost?: RunCostFields;
  /** Step records not written yet (side-effect-free steps held until this write), written with the terminal move. */
  records?: StepRecordWrite[];
}

/** A cancelled run's terminal state (decisions.md, run cancellation): the counters so far come with it when it was running. */
export const CANCELLED_STATE: TerminalState = Object.freeze({
  status: 'cancelled',
  output: null,
  errorMessage: null,
  errorDetail: null,
  errorCode: null,
});

/** The states a terminal move may leave: any active one, or only `queued` (a cancel finishing a run where it waits). */
export type ActiveStatuses = 'active' | 'queued';

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
 * A step record as one write: a step that started (`ended` false: status `running`), or one
 * that ended, with its whole record (its start folded in, see isSideEffectFree). Times are
 * relative to the write, so every record's times come from the database's clock: it ended
 * `ended_ago_ms` before the write and lasted `duration_ms`.
 */
export interface StepRecordWrite {
  run_id: string;
  step_key: string;
  step_id: string;
  step_type: string;
  iteration: number | null;
  status: 'running' | 'completed' | 'failed';
  inputs: unknown;
  output: unknown;
  error: string | null;
  error_code: string | null;
  tokens: number;
  model_calls: number;
  model_attempts: unknown[] | null;
  cost_picos: number | null;
  price_version: string | null;
  credentials: string | null;
  ended: boolean;
  duration_ms: number;
  ended_ago_ms: number;
}

/**
 * A data-modifying CTE (`recorded`) upserting the StepRecordWrites of a jsonb parameter. A
 * record written again (a re-run of an unfinished step) counts one more attempt.
 */
const RECORD_STEPS_CTE = (param: string) => `recorded AS (
  INSERT INTO ${T_STEPS} (run_id, step_key, step_id, step_type, iteration, status, inputs, output, error, error_code, tokens, model_calls,
    model_attempts, cost_picos, price_version, credentials, started_at, ended_at, duration_ms)
  SELECT r.run_id, r.step_key, r.step_id, r.step_type, r.iteration, r.status, r.inputs, r.output, r.error, r.error_code, r.tokens, r.model_calls,
    r.model_attempts, r.cost_picos, r.price_version, r.credentials,
    now() - make_interval(secs => (r.ended_ago_ms + r.duration_ms) / 1000), CASE WHEN r.ended THEN now() - make_interval(secs => r.ended_ago_ms / 1000) END,
    CASE WHEN r.ended THEN round(r.duration_ms)::int END
  FROM jsonb_to_recordset(${param}::jsonb) AS r(run_id text, step_key text, step_id text, step_type text, iteration int, status text, inputs jsonb,
    output jsonb, error text, error_code text, tokens int, model_calls int, model_attempts jsonb, cost_picos bigint, price_version text, credentials text,
    ended boolean, duration_ms float8, ended_ago_ms float8)
  ON CONFLICT (run_id, step_key) DO UPDATE SET status = EXCLUDED.status, inputs = EXCLUDED.inputs, output = EXCLUDED.output,
    error = EXCLUDED.error, error_code = EXCLUDED.error_code, tokens = EXCLUDED.tokens, model_calls = EXCLUDED.model_calls,
    model_attempts = EXCLUDED.model_attempts, cost_picos = EXCLUDED.cost_picos, price_version = EXCLUDED.price_version,
    credentials = EXCLUDED.credentials, started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at, duration_ms = EXCLUDED.duration_ms, attempts = ${T_STEPS}.attempts + 1
)`;

const SQL = defineSql(__filename, {
  /**
   * Admission in one statement: `running` when the workspace has a free slot, else `queued`
   * (async, behind the runs queued before it) or nothing (sync: refused, nothing written).
   */
  admit: sql<WorkflowRunRow>(`
    WITH slot AS (
      INSERT INTO ${T_SLOTS} AS s (workspace_id) VALUES ($2::uuid) ON CONFLICT (workspace_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id
      RETURNING s.running, s.queued
    ), decided AS (
      SELECT CASE WHEN ($14::int IS NULL OR running < $14::int) AND (queued = 0 OR NOT $9::boolean) THEN 'running'
                  WHEN $9::boolean THEN 'queued' END AS status, statement_timestamp() AS at FROM slot
    )
    INSERT INTO ${T_RUNS} (id, workspace_id, deployment_id, deployment_name, variant_id, variant_name, version_id, version, run_status, run_async,
      start_inputs, callback_url, metadata, user_label, surface, concurrency_limit, step_limit, tool_call_limit, started_at,
      lease_owner, lease_expires_at, attempts, deadline_at, credits_exhausted)
    SELECT $1::text, $2::uuid, $3::uuid, $4::text, $5::uuid, $6::text, $7::uuid, $8::int, d.status, $9::boolean, $10::jsonb, $11::text,
      $12::jsonb, $13::text, $20::text, $14::int, $15::int, $16::int, CASE WHEN d.status = 'running' THEN d.at END,
      CASE WHEN d.status = 'running' THEN $17::text END,
      CASE WHEN d.status = 'running' AND $17::text IS NOT NULL THEN d.at + make_interval(secs => $18::float8 / 1000) END,
      CASE WHEN d.status = 'running' AND $17::text IS NOT NULL THEN 1 ELSE 0 END,
      CASE WHEN d.status = 'running' AND $17::text IS NOT NULL THEN d.at + make_interval(secs => $19::float8 / 1000) END,
      $21::boolean
    FROM decided d WHERE d.status IS NOT NULL
    RETURNING *`),
  /**
   * Async runs admitted together: each workspace's slot row is
   * upserted and locked once (in workspace order, so two batches never wait on each other in a
   * cycle), and a run is `running` while the runs before it in the batch still fit under the cap
   * and none of its workspace waits, else `queued`: as `admit` would decide them one after the
   * other, in the batch's order.
   */
  admitAsyncBatch: sql<WorkflowRunRow>(`
    WITH input AS (
      SELECT r.*, row_number() OVER (PARTITION BY r.workspace_id ORDER BY r.ord) AS k
      FROM jsonb_to_recordset($1::jsonb) AS r(ord int, id text, workspace_id uuid, deployment_id uuid, deployment_name text, variant_id uuid,
        variant_name text, version_id uuid, version int, start_inputs jsonb, callback_url text, metadata jsonb, user_label text, surface text,
        concurrency_limit int, step_limit int, tool_call_limit int, lease_owner text, lease_ms float8, timeout_ms float8, credits_exhausted boolean)
    ), slot AS (
      INSERT INTO ${T_SLOTS} AS s (workspace_id) SELECT DISTINCT workspace_id FROM input ORDER BY workspace_id
      ON CONFLICT (workspace_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id
      RETURNING s.workspace_id, s.running, s.queued
    ), decided AS (
      SELECT i.*, CASE WHEN s.queued = 0 AND s.running <= min(coalesce(i.concurrency_limit, 2147483647) - i.k)
                    OVER (PARTITION BY i.workspace_id ORDER BY i.ord ROWS UNBOUNDED PRECEDING) THEN 'running' ELSE 'queued' END AS status,
        statement_timestamp() AS at
      FROM input i JOIN slot s ON s.workspace_id = i.workspace_id
    )
    INSERT INTO ${T_RUNS} (id, workspace_id, deployment_id, deployment_name, variant_id, variant_name, version_id, version, run_status, run_async,
      start_inputs, callback_url, metadata, user_label, surface, concurrency_limit, step_limit, tool_call_limit, started_at,
      lease_owner, lease_expires_at, attempts, deadline_at, credits_exhausted)
    SELECT d.id, d.workspace_id, d.deployment_id, d.deployment_name, d.variant_id, d.variant_name, d.version_id, d.version, d.status, true,
      d.start_inputs, d.callback_url, d.metadata, d.user_label, d.surface, d.concurrency_limit, d.step_limit, d.tool_call_limit,
      CASE WHEN d.status = 'running' THEN d.at END,
      CASE WHEN d.status = 'running' THEN d.lease_owner END,
      CASE WHEN d.status = 'running' AND d.lease_owner IS NOT NULL THEN d.at + make_interval(secs => d.lease_ms / 1000) END,
      CASE WHEN d.status = 'running' AND d.lease_owner IS NOT NULL THEN 1 ELSE 0 END,
      CASE WHEN d.status = 'running' AND d.lease_owner IS NOT NULL THEN d.at + make_interval(secs => d.timeout_ms / 1000) END,
      d.credits_exhausted
    FROM decided d ORDER BY d.ord
    RETURNING *`),
  find: sql<WorkflowRunRow>(`SELECT * FROM ${T_RUNS} WHERE id = $1`),
  findInWorkspace: sql<WorkflowRunRow>(`SELECT * FROM ${T_RUNS} WHERE id = $1 AND workspace_id = $2`),
  claim: sql<WorkflowRunRow>(`
    UPDATE ${T_RUNS} SET lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3::float8 / 1000), attempts = attempts + 1,
      started_at = coalesce(started_at, now()), deadline_at = coalesce(deadline_at, coalesce(started_at, now()) + make_interval(secs => $4::float8 / 1000))
    WHERE id = $1 AND run_status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at <= now()) RETURNING *`),
  leaseHeld: sql<{ wait_ms: number }>(`
    SELECT greatest(0, extract(epoch FROM lease_expires_at - now()) * 1000)::float8 AS wait_ms FROM ${T_RUNS}
    WHERE id = $1 AND run_status = 'running' AND lease_expires_at > now()`),
  release: sql(
    `UPDATE ${T_RUNS} SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2 AND run_status = 'running'`,
  ),
  heartbeat: sql(`
    UPDATE ${T_RUNS} SET lease_expires_at = now() + make_interval(secs => $3::float8 / 1000)
    WHERE id = $1 AND lease_owner = $2 AND run_status = 'running'`),
  /**
   * The terminal moves of runs ended together, in one statement (see `finish`): each
   * workspace's slot row locked once, in workspace order; the step records still held, of every run.
   */
  finishBatch: sql<WorkflowRunRow & { waiting_behind: number | null }>(`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(id text, status text, output text, error_message text, error_code text, steps_executed int,
        total_tokens int, error_detail jsonb, from_status text, cost_micros bigint, price_version text, credentials text)
    ), slot AS (
      SELECT s.workspace_id, s.queued FROM ${T_SLOTS} s
      WHERE s.workspace_id IN (SELECT r.workspace_id FROM ${T_RUNS} r JOIN input i ON i.id = r.id)
      ORDER BY s.workspace_id FOR UPDATE OF s
    ), ended AS (
      UPDATE ${T_RUNS} r SET run_status = i.status, output_content = i.output, error_message = i.error_message, error_code = i.error_code,
        ended_at = now(), steps_executed = coalesce(i.steps_executed, r.steps_executed), total_tokens = coalesce(i.total_tokens, r.total_tokens),
        error_detail = i.error_detail, cost_micros = coalesce(i.cost_micros, r.cost_micros), price_version = coalesce(i.price_version, r.price_version),
        credentials = coalesce(i.credentials, r.credentials), lease_owner = NULL, lease_expires_at = NULL
      FROM input i WHERE r.id = i.id AND r.run_status IN ('queued', i.from_status) RETURNING r.*
    ), ${RECORD_STEPS_CTE('$2')}
    SELECT ended.*, slot.queued AS waiting_behind FROM ended LEFT JOIN slot ON slot.workspace_id = ended.workspace_id`),
  /** The workspace's slots under their lock, the cap of its oldest queued run, and whether any waits. */
  lockSlots: sql<{ running: number; cap: number | null; waiting: boolean }>(`
    SELECT s.running, (SELECT concurrency_limit FROM ${T_RUNS} WHERE workspace_id = $1 AND run_status = 'queued' ORDER BY queue_seq LIMIT 1) AS cap,
      EXISTS (SELECT 1 FROM ${T_RUNS} WHERE workspace_id = $1 AND run_status = 'queued') AS waiting
    FROM ${T_SLOTS} s WHERE s.workspace_id = $1 FOR UPDATE OF s`),
  startOldestQueued: sql<WorkflowRunRow>(`
    UPDATE ${T_RUNS} SET run_status = 'running', started_at = statement_timestamp()
    WHERE id IN (SELECT id FROM ${T_RUNS} WHERE workspace_id = $1 AND run_status = 'queued' ORDER BY queue_seq LIMIT $2)
    RETURNING *`),
  abandoned: sql<{ id: string; workspace_id: string; reason: 'lease' | 'deadline' | 'unclaimed' }>(`
    SELECT id, workspace_id,
      CASE WHEN coalesce(deadline_at, started_at + make_interval(secs => $2::float8 / 1000)) < now() THEN 'deadline'
           WHEN lease_expires_at IS NULL THEN 'unclaimed' ELSE 'lease' END AS reason
    FROM ${T_RUNS}
    WHERE run_status = 'running' AND (coalesce(deadline_at, started_at + make_interval(secs => $2::float8 / 1000)) < now()
      OR coalesce(lease_expires_at, started_at) < now() - make_interval(secs => $1::float8 / 1000))
    ORDER BY started_at LIMIT $3`),
  workspacesWithStartableRuns: sql<{ workspace_id: string }>(`
    SELECT s.workspace_id FROM ${T_SLOTS} s WHERE s.queued > 0
      AND (SELECT q.concurrency_limit IS NULL OR q.concurrency_limit > s.running FROM ${T_RUNS} q
           WHERE q.workspace_id = s.workspace_id AND q.run_status = 'queued' ORDER BY q.queue_seq LIMIT 1)`),
  /** `cost_picos` as float8, read as a number (exact: a step's cost stays far below 2^53 pico-USD). */
  steps: sql<StepRecordRow>(`
    SELECT step_key, step_id, step_type, iteration, status, inputs, output, error, error_code, tokens, model_calls, model_attempts,
      cost_picos::float8 AS cost_picos, price_version, credentials, attempts, started_at, ended_at, duration_ms
    FROM ${T_STEPS} WHERE run_id = $1 ORDER BY started_at, step_key`),
  recordSteps: sql(`WITH ${RECORD_STEPS_CTE('$1')} SELECT 1`),
  endStep: sql(`
    UPDATE ${T_STEPS} SET status = $3, output = $4, error = $5, error_code = $6, tokens = $7, model_calls = $8, model_attempts = $9,
      cost_picos = $10, price_version = $11, credentials = $12, ended_at = now(),
      duration_ms = round(extract(epoch FROM now() - started_at) * 1000)::int
    WHERE run_id = $1 AND step_key = $2`),
});

/**
 * Every query of workflow runs and their step records, in plain SQL. A workspace's concurrency
 * slots are its `workflow_slots` row, which a trigger on `workflow_runs` keeps counting: admission,
 * finish and promotion decide under that one row's lock, so the cap is exact across replicas and
 * nothing counts rows under a workspace-wide lock.
 */
@Injectable()
export class WorkflowRunsRepository extends DataRepository {
  private readonly asyncAdmissions = new GroupCommit<{ run: NewWorkflowRun; lease: RunLease | null }, Admission>({
    run: (admissions) => this.admitAsyncBatch(admissions),
    keyOf: (admission) => admission.run.id,
    maxBatch: MAX_BATCH,
    maxInFlight: MAX_IN_FLIGHT,
  });

  /** Terminal moves made at the same time share one statement and one commit, as admissions do. */
  private readonly finishes = new GroupCommit<
    { id: string; state: TerminalState; from: ActiveStatuses },
    (WorkflowRunRow & { waiting_behind: number | null }) | null
  >({
    run: (moves) => this.finishTogether(moves),
    keyOf: (move) => move.id,
    maxBatch: MAX_BATCH,
    maxInFlight: MAX_IN_FLIGHT,
  });

  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /**
   * Admits a run in one statement: `running` when the workspace has a free slot, else `queued`
   * (async, behind the runs queued before it) or refused (sync: nothing written). The row exists
   * before anything of the run executes. With `lease`, a running run is taken at once by the
   * admitting replica (its lease, first attempt and deadline), so no worker takes it meanwhile.
   */
  async admit(run: NewWorkflowRun, lease: RunLease | null): Promise<Admission> {
    const row = await this.row(SQL.admit, [
      run.id,
      run.workspaceId,
      run.deploymentId,
      run.deploymentName,
      run.variantId,
      run.variantName,
      run.versionId,
      run.version,
      run.runAsync,
      JSON.stringify(run.inputs),
      run.callbackUrl,
      JSON.stringify(run.metadata),
      run.user,
      run.concurrencyLimit,
      run.stepLimit,
      run.toolCallLimit,
      lease?.owner ?? null,
      lease?.leaseMs ?? null,
      lease?.timeoutMs ?? null,
      run.surface,
      run.creditsExhausted,
    ]);
    if (!row) return { status: 'refused' };
    return { status: row.run_status === 'running' ? 'running' : 'queued', run: row };
  }

  /**
   * Admits an async run as `admit` does, together with the async runs admitted at the same time:
   * they share one statement and one commit (see GroupCommit: no timer, an admission goes out at
   * once when a statement slot is free, and those arriving meanwhile leave together in the next).
   * Answered once its own row is committed.
   */
  admitAsync(run: NewWorkflowRun, lease: RunLease | null): Promise<Admission> {
    this.refuseTransaction();
    return this.asyncAdmissions.submit({ run, lease });
  }

  /**
   * A batch runs in the async context of the caller that started it and serves every caller in
   * it: started inside a transaction, it would write the others' rows in that transaction.
   */
  private refuseTransaction(): void {
    if (this.inTransaction) throw new Error('workflow runs are admitted and finished in batches: never inside a transaction');
  }

  /**
   * Admits async runs together in one statement (and one commit), decided as `admit` would decide
   * them one after the other in the given order; answers each one's admission, in that order.
   */
  async admitAsyncBatch(admissions: ReadonlyArray<{ run: NewWorkflowRun; lease: RunLease | null }>): Promise<Admission[]> {
    const input = admissions.map(({ run, lease }, ord) => ({
      ord,
      id: run.id,
      workspace_id: run.workspaceId,
      deployment_id: run.deploymentId,
      deployment_name: run.deploymentName,
      variant_id: run.variantId,
      variant_name: run.variantName,
      version_id: run.versionId,
      version: run.version,
      start_inputs: run.inputs,
      callback_url: run.callbackUrl,
      metadata: run.metadata,
      user_label: run.user,
      surface: run.surface,
      concurrency_limit: run.concurrencyLimit,
      step_limit: run.stepLimit,
      tool_call_limit: run.toolCallLimit,
      lease_owner: lease?.owner ?? null,
      lease_ms: lease?.leaseMs ?? null,
      timeout_ms: lease?.timeoutMs ?? null,
      credits_exhausted: run.creditsExhausted,
    }));
    const rows = new Map((await this.rows(SQL.admitAsyncBatch, [JSON.stringify(input)])).map((row) => [row.id, row]));
    return admissions.map(({ run }) => {
      const row = rows.get(run.id);
      if (!row) throw new Error(`the batched admission wrote no row for ${run.id}`);
      return { status: row.run_status === 'running' ? 'running' : 'queued', run: row };
    });
  }

  find(id: string): Promise<WorkflowRunRow | null> {
    return this.row(SQL.find, [id]);
  }

  findInWorkspace(workspaceId: string, id: string): Promise<WorkflowRunRow | null> {
    return this.row(SQL.findInWorkspace, [id, workspaceId]);
  }

  /**
   * A worker takes a running run whose lease is free or lapsed: its lease, one more attempt, and
   * the deadline on the first take. `leased`: another holder's lease is live (for `waitMs` more);
   * `gone`: the run is not `running` (finished, or failed by the reaper).
   */
  async claim(id: string, owner: string, leaseMs: number, timeoutMs: number): Promise<Claim> {
    const taken = await this.row(SQL.claim, [id, owner, leaseMs, timeoutMs]);
    if (taken) return { state: 'taken', run: taken };
    const held = await this.row(SQL.leaseHeld, [id]);
    return held ? { state: 'leased', waitMs: Math.ceil(held.wait_ms) } : { state: 'gone' };
  }

  /** Gives a lease back (the holder stopped without settling the run), so the next attempt need not wait for it to lapse. */
  async release(id: string, owner: string): Promise<void> {
    await this.execute(SQL.release, [id, owner]);
  }

  /** Renews the lease; false when the run is no longer this worker's (reaped, or taken over). */
  async heartbeat(id: string, owner: string, leaseMs: number): Promise<boolean> {
    return (await this.execute(SQL.heartbeat, [id, owner, leaseMs])) > 0;
  }

  /**
   * Moves a run to a terminal state (nothing leaves one: a run already terminal is left as it
   * is and `run` is null), which frees its slot (the slot trigger), in one statement under the
   * workspace's slot lock, with the step records still held (TerminalState.records); then, when runs wait behind it, starts the oldest that now fit.
   * `from` `queued` moves only a run still waiting for its slot. Runs ended at the same time share
   * the statement and its commit (see GroupCommit), as admissions do.
   */
  async finish(id: string, state: TerminalState, from: ActiveStatuses = 'active'): Promise<Finished> {
    this.refuseTransaction();
    const ended = await this.finishes.submit({ id, state, from });
    if (!ended) return { run: null, promoted: [] };
    const { waiting_behind: waiting, ...run } = ended;
    const promoted = waiting ? await this.promoteQueued(run.workspace_id) : [];
    return { run, promoted };
  }

  /** Terminal moves made at the same time, in one statement: each run's row (or null when it was already terminal). */
  private async finishTogether(
    moves: ReadonlyArray<{ id: string; state: TerminalState; from: ActiveStatuses }>,
  ): Promise<Array<(WorkflowRunRow & { waiting_behind: number | null }) | null>> {
    const input = moves.map(({ id, state, from }) => ({
      id,
      status: state.status,
      output: state.output,
      error_message: state.errorMessage,
      error_code: state.errorCode,
      steps_executed: state.stepsExecuted ?? null,
      total_tokens: state.totalTokens ?? null,
      error_detail: state.errorDetail ?? null,
      from_status: from === 'queued' ? 'queued' : 'running',
      cost_micros: state.cost?.cost_micros ?? null,
      price_version: state.cost?.price_version ?? null,
      credentials: state.cost?.credentials ?? null,
    }));
    const records = moves.flatMap(({ state }) => state.records ?? []);
    const ended = new Map((await this.rows(SQL.finishBatch, [JSON.stringify(input), JSON.stringify(records)])).map((row) => [row.id, row]));
    return moves.map(({ id }) => ended.get(id) ?? null);
  }

  /**
   * Starts queued runs of a workspace, oldest first, while slots are free (under the workspace's
   * slot lock; the cap is the oldest queued run's). Start times are taken under the lock
   * (statement_timestamp), so they follow the start order.
   */
  promoteQueued(workspaceId: string): Promise<WorkflowRunRow[]> {
    return this.transaction(async () => {
      const slot = await this.row(SQL.lockSlots, [workspaceId]);
      if (!slot?.waiting) return [];
      const free = slot.cap === null ? 1_000_000 : slot.cap - slot.running;
      if (free <= 0) return [];
      return this.rows(SQL.startOldestQueued, [workspaceId, free]);
    });
  }

  /**
   * Running runs that need the reaper, each with why: `deadline`, past the run time-out (counted
   * from its start, taken by a worker or not); `lease`, taken by a worker whose lease lapsed more
   * than `graceMs` ago (the worker died and no other took it over); `unclaimed`, started more than
   * `graceMs` ago but never taken (its job may be lost: it is queued again, not failed, since a
   * busy cluster may simply not have reached it yet).
   */
  abandoned(
    graceMs: number,
    timeoutMs: number,
    limit = 100,
  ): Promise<Array<{ id: string; workspace_id: string; reason: 'lease' | 'deadline' | 'unclaimed' }>> {
    return this.rows(SQL.abandoned, [graceMs, timeoutMs, limit]);
  }

  /** Workspaces with queued runs and a free slot (a safety net for promotions whose jobs were lost). */
  async workspacesWithStartableRuns(): Promise<string[]> {
    return (await this.rows(SQL.workspacesWithStartableRuns)).map((row) => row.workspace_id);
  }

  steps(runId: string): Promise<StepRecordRow[]> {
    return this.rows(SQL.steps, [runId]);
  }

  /** Writes step records (see StepRecordWrite) in one statement. */
  async recordSteps(records: StepRecordWrite[]): Promise<void> {
    if (records.length === 0) return;
    await this.execute(SQL.recordSteps, [JSON.stringify(records)]);
  }

  async endStep(step: StepEnd): Promise<void> {
    await this.execute(SQL.endStep, [
      step.runId,
      step.key,
      step.status,
      JSON.stringify(step.output ?? null),
      step.error,
      step.errorCode,
      step.tokens,
      step.modelCalls,
      step.modelAttempts ? JSON.stringify(step.modelAttempts) : null,
      step.cost?.picoUsd ?? null,
      step.cost?.priceVersion ?? null,
      step.cost?.credentials ?? null,
    ]);
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
    ...(row.model_attempts && { model_attempts: row.model_attempts }),
    attempts: row.attempts,
    started_at: row.started_at.toISOString(),
    ended_at: row.ended_at?.toISOString() ?? null,
    duration_ms: row.duration_ms,
  };
}
