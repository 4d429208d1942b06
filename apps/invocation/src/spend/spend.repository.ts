import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { BudgetScope, SpendGroup, UsageSeriesBucket, UsageSeriesGroup, UsageSums } from '@waggle/contracts';
import { DataRepository, defineSql, sql } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';

/** Groups a spend read answers at most. */
export const MAX_SPEND_GROUPS = 1000;

/** A scope whose spend since a time is asked for (a budget's scope and the start of its period). */
export interface ScopeSince {
  scope: BudgetScope;
  scope_id: string | null;
  since: Date;
}

const REQUESTS = `"${SCHEMA}"."requests"`;

const SQL = defineSql(__filename, {
  /**
   * Sums of `cost_micros` and runs of a workspace in [$2, $3), grouped by the UTC day, the model,
   * the API key or the user label ($4), the most expensive first (days in order).
   */
  grouped: sql<{ key: string | null; cost_micros: string; runs: number }>(`
    SELECT
      CASE $4::text
        WHEN 'day' THEN to_char("generated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD')
        WHEN 'model' THEN "model"
        WHEN 'api_key' THEN "api_key_id"::text
        ELSE "user_label"
      END AS "key",
      COALESCE(SUM("cost_micros"), 0)::text AS "cost_micros",
      COUNT(*)::integer AS "runs"
    FROM ${REQUESTS}
    WHERE "workspace_id" = $1 AND "generated_at" >= $2 AND "generated_at" < $3
    GROUP BY 1
    ORDER BY CASE WHEN $4::text = 'day' THEN 1 ELSE 0 END, CASE WHEN $4::text = 'day' THEN NULL ELSE SUM("cost_micros") END DESC NULLS LAST, 1
    LIMIT $5`),
  /** Each scope's spend since its time, in the order given ($2: `[{i, scope, scope_id, since}]`). */
  scopes: sql<{ i: number; spent: string }>(`
    SELECT s."i", COALESCE(SUM(r."cost_micros"), 0)::text AS "spent"
    FROM jsonb_to_recordset($2::jsonb) AS s("i" integer, "scope" text, "scope_id" text, "since" timestamptz)
    LEFT JOIN ${REQUESTS} r ON r."workspace_id" = $1 AND r."generated_at" >= s."since" AND r."cost_micros" IS NOT NULL
      AND (s."scope" = 'workspace'
        OR (s."scope" = 'api_key' AND r."api_key_id"::text = s."scope_id")
        OR (s."scope" = 'user' AND r."user_label" = s."scope_id"))
    GROUP BY s."i"
    ORDER BY s."i"`),
  /**
   * The runs of a workspace in [$2, $3) summed per bucket ($4: UTC hour or day) and group ($5:
   * model, artifact or none), with the totals of the range (the empty grouping set) in the same
   * pass. Groups past the $6 most requested are summed as one `other` group. A run's latency is
   * its recorded duration, else its end less its start; the p95 is over the runs that ended.
   */
  series: sql<{
    total: boolean;
    bucket: Date | null;
    key: string | null;
    other: boolean | null;
    requests: number;
    failed: number;
    queued: number;
    running: number;
    input_tokens: string;
    output_tokens: string;
    total_tokens: string;
    cost_micros: string;
    p95_latency_ms: number | null;
  }>(`
    WITH runs AS (
      SELECT
        date_trunc($4::text, "generated_at", 'UTC') AS "bucket",
        CASE $5::text WHEN 'model' THEN "model" WHEN 'artifact' THEN "requestable_id"::text END AS "key",
        "status",
        "cost_micros",
        CASE WHEN jsonb_typeof("usage" -> 'prompt_tokens' -> 'total_tokens') = 'number' THEN ("usage" -> 'prompt_tokens' -> 'total_tokens')::numeric END AS "input_tokens",
        CASE WHEN jsonb_typeof("usage" -> 'completion_tokens' -> 'total_tokens') = 'number' THEN ("usage" -> 'completion_tokens' -> 'total_tokens')::numeric END AS "output_tokens",
        CASE WHEN jsonb_typeof("usage" -> 'total_tokens') = 'number' THEN ("usage" -> 'total_tokens')::numeric END AS "total_tokens",
        CASE WHEN "status" IN ('queued', 'running') THEN NULL
          ELSE COALESCE("duration_ms"::double precision, EXTRACT(EPOCH FROM ("ended_at" - "started_at")) * 1000) END AS "latency_ms"
      FROM ${REQUESTS}
      WHERE "workspace_id" = $1 AND "generated_at" >= $2 AND "generated_at" < $3
    ), ranked AS (
      SELECT "key", row_number() OVER (ORDER BY COUNT(*) DESC, "key" NULLS LAST) > $6 AS "other"
      FROM runs
      GROUP BY "key"
    ), folded AS (
      SELECT runs.*, ranked."other", CASE WHEN ranked."other" THEN NULL ELSE runs."key" END AS "group_key"
      FROM runs JOIN ranked ON ranked."key" IS NOT DISTINCT FROM runs."key"
    )
    SELECT
      GROUPING("bucket") = 1 AS "total",
      "bucket",
      "group_key" AS "key",
      "other",
      COUNT(*)::integer AS "requests",
      COUNT(*) FILTER (WHERE "status" = 'failed')::integer AS "failed",
      COUNT(*) FILTER (WHERE "status" = 'queued')::integer AS "queued",
      COUNT(*) FILTER (WHERE "status" = 'running')::integer AS "running",
      COALESCE(SUM("input_tokens"), 0)::text AS "input_tokens",
      COALESCE(SUM("output_tokens"), 0)::text AS "output_tokens",
      COALESCE(SUM("total_tokens"), 0)::text AS "total_tokens",
      COALESCE(SUM("cost_micros"), 0)::text AS "cost_micros",
      percentile_cont(0.95) WITHIN GROUP (ORDER BY "latency_ms") FILTER (WHERE "latency_ms" IS NOT NULL) AS "p95_latency_ms"
    FROM folded
    GROUP BY GROUPING SETS (("bucket", "group_key", "other"), ())
    ORDER BY 1, "bucket", "other", "group_key" NULLS FIRST`),
});

/** Spend read from the request ledger: the runs' `cost_micros`. */
@Injectable()
export class SpendRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  async grouped(
    workspaceId: string,
    groupBy: SpendGroup,
    from: Date,
    to: Date,
  ): Promise<Array<{ key: string | null; cost_micros: number; runs: number }>> {
    const rows = await this.rows(SQL.grouped, [workspaceId, from, to, groupBy, MAX_SPEND_GROUPS]);
    return rows.map((row) => ({ key: row.key, cost_micros: Number(row.cost_micros), runs: row.runs }));
  }

  /** The ledger summed per bucket and group, and the range's totals (see SQL.series). */
  async series(
    workspaceId: string,
    range: { from: Date; to: Date; bucket: UsageSeriesBucket; groupBy: UsageSeriesGroup | null; maxGroups: number },
  ): Promise<{ points: Array<UsageSums & { bucket: Date; key: string | null; other: boolean }>; totals: UsageSums | null }> {
    const rows = await this.rows(SQL.series, [workspaceId, range.from, range.to, range.bucket, range.groupBy, range.maxGroups]);
    const sums = (row: (typeof rows)[number]): UsageSums => ({
      requests: row.requests,
      failed: row.failed,
      queued: row.queued,
      running: row.running,
      input_tokens: Number(row.input_tokens),
      output_tokens: Number(row.output_tokens),
      total_tokens: Number(row.total_tokens),
      cost_micros: Number(row.cost_micros),
      p95_latency_ms: row.p95_latency_ms === null ? null : Math.round(row.p95_latency_ms),
    });
    const total = rows.find((row) => row.total);
    return {
      points: rows
        .filter((row) => !row.total)
        .map((row) => ({ bucket: row.bucket as Date, key: row.key, other: row.other === true, ...sums(row) })),
      totals: total ? sums(total) : null,
    };
  }

  /** Each scope's spend since its time (micro-USD), in the order given. */
  async scopeSpend(workspaceId: string, scopes: ScopeSince[]): Promise<number[]> {
    if (scopes.length === 0) return [];
    const rows = await this.rows(SQL.scopes, [
      workspaceId,
      JSON.stringify(scopes.map((scope, i) => ({ i, scope: scope.scope, scope_id: scope.scope_id, since: scope.since.toISOString() }))),
    ]);
    return rows.map((row) => Number(row.spent));
  }
}
