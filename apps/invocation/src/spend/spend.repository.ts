import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { BudgetScope, SpendGroup } from '@waggle/contracts';
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
