import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { BudgetView, RateLimitScope } from '@waggle/contracts';
import { DataRepository, defineSql, sql } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';

/** A budget as the projection carries it: what admission and reconciliation read of it. */
export type ProjectedBudget = Pick<BudgetView, 'id' | 'scope' | 'scope_id' | 'period' | 'limit_micros' | 'thresholds'>;

/** A rate limit as the projection carries it. */
export interface ProjectedRateLimit {
  scope: RateLimitScope;
  scope_id: string;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
}

/** A workspace's governance configuration at one version: what its Redis projection is made of. */
export interface GovernanceSnapshot {
  version: number;
  budgets: ProjectedBudget[];
  rateLimits: ProjectedRateLimit[];
}

interface SnapshotRow {
  version: string;
  budgets: Array<Omit<ProjectedBudget, 'limit_micros'> & { limit_micros: number | string }>;
  rate_limits: ProjectedRateLimit[];
}

const SQL = defineSql(__filename, {
  /** Raises the workspace's version and holds its row until the transaction ends: changes of one workspace take turns. */
  bumpVersion: sql<{ version: string }>(`
    INSERT INTO "${SCHEMA}"."governance_versions" AS v ("workspace_id", "version") VALUES ($1, 1)
    ON CONFLICT ("workspace_id") DO UPDATE SET "version" = v."version" + 1
    RETURNING "version"`),
  /**
   * The version with the budgets and rate limits it names, in one statement (one snapshot): a
   * change commits its rows and its version together, so they always agree.
   */
  snapshot: sql<SnapshotRow>(`
    SELECT
      COALESCE((SELECT "version" FROM "${SCHEMA}"."governance_versions" WHERE "workspace_id" = $1), 0)::text AS "version",
      COALESCE((
        SELECT json_agg(json_build_object('id', b."id", 'scope', b."scope", 'scope_id', b."scope_id", 'period', b."period",
          'limit_micros', b."limit_micros", 'thresholds', b."thresholds") ORDER BY b."created_at", b."id")
        FROM "${SCHEMA}"."budgets" b WHERE b."workspace_id" = $1), '[]') AS "budgets",
      COALESCE((
        SELECT json_agg(json_build_object('scope', l."scope", 'scope_id', l."scope_id",
          'requests_per_minute', l."requests_per_minute", 'tokens_per_minute', l."tokens_per_minute") ORDER BY l."created_at", l."id")
        FROM "${SCHEMA}"."rate_limits" l WHERE l."workspace_id" = $1), '[]') AS "rate_limits"`),
});

/** The workspace's projection version, and the snapshot its projection is written from. */
@Injectable()
export class GovernanceProjectionRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** Inside a change's transaction: its new version, the workspace's row locked until commit. */
  async bumpVersion(workspaceId: string): Promise<number> {
    const row = await this.row(SQL.bumpVersion, [workspaceId]);
    return Number(row?.version);
  }

  async snapshot(workspaceId: string): Promise<GovernanceSnapshot> {
    const row = (await this.row(SQL.snapshot, [workspaceId])) as SnapshotRow;
    return {
      version: Number(row.version),
      budgets: row.budgets.map((budget) => ({ ...budget, limit_micros: Number(budget.limit_micros) })),
      rateLimits: row.rate_limits,
    };
  }
}
