import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { CallbackDeliveryJob, DeliveryStatus } from '@waggle/contracts';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import { GroupCommit } from '@waggle/platform';
import { In, type DataSource } from 'typeorm';
import { DeliveryAttemptEntity } from './entities/delivery-attempt.entity';
import { DeliveryEntity } from './entities/delivery.entity';

/** Rows per statement: large enough to absorb a burst, small enough to keep one statement short. */
const MAX_BATCH = 200;
/** Statements of one kind running at once (the pool has 10 connections). */
const MAX_IN_FLIGHT = 3;

export interface DeliveryFilter {
  workspaceId: string;
  requestId?: string;
  status?: DeliveryStatus;
  /** A delivery id: only the deliveries after it in the order (none when it is not the workspace's). */
  before?: string;
  limit: number;
}

/** Where a delivery stands when a job picks it up. */
export interface DeliveryState {
  status: DeliveryStatus;
  attemptCount: number;
  jobId: string;
  jobAttemptCount: number;
  nextAttemptAt: Date | null;
}

export interface AttemptRecord {
  deliveryId: string;
  jobId: string;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The delivery's status after this attempt. */
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

interface OpenRequest {
  job: CallbackDeliveryJob;
  jobId: string;
  body: string;
}

/** The columns `open` reads back. */
type StateRow = Pick<RowOf<DeliveryEntity>, 'id' | 'status' | 'attempt_count' | 'job_id' | 'job_attempt_count' | 'next_attempt_at'>;

const SQL = defineSql(__filename, {
  /** The ids of a page of the delivery log: $1 workspace, $2 request id, $3 status, $4 the cursor's delivery id, $5 the page size. */
  list: sql<{ id: string }>(`
    SELECT "id" FROM "callback_dispatcher"."deliveries"
    WHERE "workspace_id" = $1
      AND ($2::text IS NULL OR "request_id" = $2::text)
      AND ($3::text IS NULL OR "status" = $3::text)
      AND ($4::text IS NULL OR ("created_at", "id") < (
        SELECT "created_at", "id" FROM "callback_dispatcher"."deliveries" WHERE "id" = $4::text AND "workspace_id" = $1))
    ORDER BY "created_at" DESC, "id" DESC
    LIMIT $5`),
  /** $1 delivery, $2 the job that owns it as read, $3 the new job. */
  claimForJob: sql(`
    UPDATE "callback_dispatcher"."deliveries"
    SET "status" = 'pending', "job_id" = $3, "job_attempt_count" = 0, "next_attempt_at" = now(), "completed_at" = NULL
    WHERE "id" = $1 AND "job_id" = $2`),
  /** $1 delivery, $2 the job that claimed it, $3… the row as it was read. */
  releaseClaim: sql(`
    UPDATE "callback_dispatcher"."deliveries"
    SET "status" = $3, "job_id" = $4, "job_attempt_count" = $5, "next_attempt_at" = $6, "completed_at" = $7
    WHERE "id" = $1 AND "job_id" = $2`),
  /** $1: a JSON array of the deliveries to open. */
  open: sql<StateRow>(`
    WITH input AS (
      SELECT * FROM json_to_recordset($1::json) AS i("id" text, "workspace_id" uuid, "request_id" text, "event_type" text, "url" text, "owner_kind" text, "owner_id" uuid, "body" text, "job_id" text)
    ), inserted AS (
      INSERT INTO "callback_dispatcher"."deliveries" ("id", "workspace_id", "request_id", "event_type", "url", "owner_kind", "owner_id", "body", "status", "job_id", "next_attempt_at")
      SELECT "id", "workspace_id", "request_id", "event_type", "url", "owner_kind", "owner_id", "body"::json, 'pending', "job_id", now() FROM input
      ON CONFLICT ("id") DO NOTHING
      RETURNING "id", "status", "attempt_count", "job_id", "job_attempt_count", "next_attempt_at"
    )
    SELECT * FROM inserted
    UNION ALL
    SELECT d."id", d."status", d."attempt_count", d."job_id", d."job_attempt_count", d."next_attempt_at"
    FROM "callback_dispatcher"."deliveries" d JOIN input USING ("id")
    WHERE NOT EXISTS (SELECT 1 FROM inserted WHERE inserted."id" = d."id")`),
  states: sql<StateRow>(`
    SELECT "id", "status", "attempt_count", "job_id", "job_attempt_count", "next_attempt_at"
    FROM "callback_dispatcher"."deliveries" WHERE "id" = ANY($1::text[])`),
  /** $1: a JSON array of the attempts to record. */
  recordAttempts: sql<Pick<RowOf<DeliveryAttemptEntity, 'delivery'>, 'delivery_id' | 'attempt'>>(`
    WITH input AS (
      SELECT * FROM json_to_recordset($1::json) AS i("delivery_id" text, "job_id" text, "status" text, "next_attempt_at" timestamptz, "attempted_at" timestamptz, "status_code" integer, "latency_ms" integer, "error" text)
    ), updated AS (
      UPDATE "callback_dispatcher"."deliveries" AS d SET
        "attempt_count" = d."attempt_count" + 1,
        "job_attempt_count" = CASE WHEN d."job_id" = i."job_id" THEN d."job_attempt_count" + 1 ELSE d."job_attempt_count" END,
        "status" = CASE WHEN d."job_id" = i."job_id" AND d."status" = 'pending' THEN i."status" ELSE d."status" END,
        "next_attempt_at" = CASE WHEN d."job_id" = i."job_id" AND d."status" = 'pending' THEN i."next_attempt_at" ELSE d."next_attempt_at" END,
        "completed_at" = CASE WHEN d."job_id" = i."job_id" AND d."status" = 'pending' AND i."status" <> 'pending' THEN now() ELSE d."completed_at" END
      FROM input i
      WHERE d."id" = i."delivery_id"
      RETURNING d."id", d."attempt_count"
    )
    INSERT INTO "callback_dispatcher"."delivery_attempts" ("delivery_id", "attempt", "attempted_at", "status_code", "latency_ms", "error")
    SELECT i."delivery_id", u."attempt_count", i."attempted_at", i."status_code", i."latency_ms", i."error"
    FROM input i JOIN updated u ON u."id" = i."delivery_id"
    RETURNING "delivery_id", "attempt"`),
});

function toState(row: StateRow): DeliveryState {
  return {
    status: row.status,
    attemptCount: row.attempt_count,
    jobId: row.job_id,
    jobAttemptCount: row.job_attempt_count,
    nextAttemptAt: row.next_attempt_at,
  };
}

/**
 * Every query of the delivery log: a delivery and its attempts.
 *
 * The worker's two statements per attempt: one before sending (create the delivery on first
 * sight, read where it stands), one after (record the attempt and the delivery's new state
 * together). Every callback pays them, so concurrent attempts share statements (see
 * GroupCommit): under load one multi-row statement and one commit serve many callbacks, and
 * each caller still waits for its own row to be committed. The rest is the log as the
 * workspace and the operator read it, and redelivery's claim on a row.
 */
@Injectable()
export class DeliveriesRepository extends DataRepository {
  private readonly opens = new GroupCommit<OpenRequest, DeliveryState>({
    run: (requests) => this.openBatch(requests),
    keyOf: (request) => request.job.delivery_id,
    maxBatch: MAX_BATCH,
    maxInFlight: MAX_IN_FLIGHT,
  });

  private readonly attempts = new GroupCommit<AttemptRecord, number>({
    run: (records) => this.recordBatch(records),
    keyOf: (record) => record.deliveryId,
    maxBatch: MAX_BATCH,
    maxInFlight: MAX_IN_FLIGHT,
  });

  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** Creates the delivery the first time its job runs; answers its current state either way. */
  open(job: CallbackDeliveryJob, jobId: string, body: string): Promise<DeliveryState> {
    this.refuseTransaction();
    return this.opens.submit({ job, jobId, body });
  }

  /**
   * Records an attempt and moves the delivery on. The attempt number is the delivery's
   * count + 1 taken under the row lock of the UPDATE, so two runs of one job (a stalled job
   * re-run while the first still finishes) never share a number. Only the job that owns a
   * pending delivery changes its status: an older job's late answer is recorded but
   * decides nothing.
   */
  recordAttempt(record: AttemptRecord): Promise<number> {
    this.refuseTransaction();
    return this.attempts.submit(record);
  }

  /**
   * The workspace's deliveries matching the filter, newest first (created_at, then id, so
   * deliveries created in the same microsecond keep their place); a page after `before`'s.
   */
  async list(filter: DeliveryFilter): Promise<DeliveryEntity[]> {
    const ids = await this.rows(SQL.list, [
      filter.workspaceId,
      filter.requestId ?? null,
      filter.status ?? null,
      filter.before ?? null,
      filter.limit,
    ]);
    if (ids.length === 0) return [];
    const rows = await this.table(DeliveryEntity).findBy({ id: In(ids.map((row) => row.id)) });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((row) => byId.get(row.id) ?? []);
  }

  findById(id: string): Promise<DeliveryEntity | null> {
    return this.table(DeliveryEntity).findOneBy({ id });
  }

  /** Each delivery's attempts, in order (a delivery without any is absent). */
  async attemptsOf(deliveryIds: string[]): Promise<Map<string, DeliveryAttemptEntity[]>> {
    const byDelivery = new Map<string, DeliveryAttemptEntity[]>();
    if (deliveryIds.length === 0) return byDelivery;
    const attempts = await this.table(DeliveryAttemptEntity).find({ where: { deliveryId: In(deliveryIds) }, order: { attempt: 'ASC' } });
    for (const attempt of attempts) {
      const list = byDelivery.get(attempt.deliveryId) ?? [];
      list.push(attempt);
      byDelivery.set(attempt.deliveryId, list);
    }
    return byDelivery;
  }

  /** The job that owns each of these deliveries now (a delivery without a row is absent). */
  async jobOwners(deliveryIds: string[]): Promise<Map<string, string>> {
    if (deliveryIds.length === 0) return new Map();
    const rows = await this.table(DeliveryEntity).find({ select: { id: true, jobId: true }, where: { id: In(deliveryIds) } });
    return new Map(rows.map((row) => [row.id, row.jobId]));
  }

  /**
   * Hands the delivery to a new job with a fresh retry budget, pending from now, unless
   * another job took it since it was read (then false).
   */
  async claimForJob(delivery: DeliveryEntity, jobId: string): Promise<boolean> {
    return (await this.execute(SQL.claimForJob, [delivery.id, delivery.jobId, jobId])) > 0;
  }

  /** Undoes claimForJob: the row as it was read, if the job `jobId` still owns it. */
  async releaseClaim(delivery: DeliveryEntity, jobId: string): Promise<void> {
    await this.execute(SQL.releaseClaim, [
      delivery.id,
      jobId,
      delivery.status,
      delivery.jobId,
      delivery.jobAttemptCount,
      delivery.nextAttemptAt,
      delivery.completedAt,
    ]);
  }

  /**
   * A batch runs in the async context of the caller that started it and serves every caller in
   * it: started inside a transaction, it would write the others' rows in that transaction.
   */
  private refuseTransaction(): void {
    if (this.inTransaction) throw new Error('the delivery log batches its writes: they are never made inside a transaction');
  }

  private async openBatch(requests: OpenRequest[]): Promise<Array<DeliveryState | Error>> {
    const input = requests.map(({ job, jobId, body }) => ({
      id: job.delivery_id,
      workspace_id: job.workspace_id,
      request_id: job.request_id,
      event_type: job.event_type,
      url: job.url,
      owner_kind: job.owner.kind,
      owner_id: job.owner.id,
      // The exact text the attempts send; the json column keeps it as written.
      body,
      job_id: jobId,
    }));
    const rows = await this.rows(SQL.open, [JSON.stringify(input)]);
    const byId = new Map(rows.map((row) => [row.id, toState(row)]));
    // A row another worker inserted concurrently is invisible to the statement's snapshot.
    const missing = requests.filter((request) => !byId.has(request.job.delivery_id)).map((request) => request.job.delivery_id);
    if (missing.length > 0) {
      for (const row of await this.rows(SQL.states, [missing])) byId.set(row.id, toState(row));
    }
    return requests.map(
      (request) => byId.get(request.job.delivery_id) ?? new Error(`delivery ${request.job.delivery_id} could not be opened`),
    );
  }

  private async recordBatch(records: AttemptRecord[]): Promise<Array<number | Error>> {
    const input = records.map((record) => ({
      delivery_id: record.deliveryId,
      job_id: record.jobId,
      status: record.status,
      next_attempt_at: record.nextAttemptAt?.toISOString() ?? null,
      attempted_at: record.attemptedAt.toISOString(),
      status_code: record.statusCode,
      latency_ms: record.latencyMs,
      error: record.error,
    }));
    const rows = await this.rows(SQL.recordAttempts, [JSON.stringify(input)]);
    const byId = new Map(rows.map((row) => [row.delivery_id, row.attempt]));
    return records.map(
      (record) => byId.get(record.deliveryId) ?? new Error(`delivery ${record.deliveryId} is missing: its attempt could not be recorded`),
    );
  }
}
