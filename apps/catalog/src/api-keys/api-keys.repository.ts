import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PlanLimits } from '@waggle/contracts';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { PLAN_LIMITS_JSON } from '../plans/plans.repository';
import type { WorkspaceOnPlan } from '../workspaces/workspace';
import { ApiKeyEntity } from './entities/api-key.entity';

/** A key with what resolving it needs of its workspace. */
export interface ResolvableKey extends Pick<ApiKeyEntity, 'id' | 'workspaceId' | 'keyHash' | 'revokedAt'> {
  workspace: Pick<WorkspaceOnPlan, 'language' | 'limitOverrides' | 'deletedAt' | 'planLimits' | 'planHostedCredits'>;
}

type ResolvableKeyRow = Pick<RowOf<ApiKeyEntity>, 'id' | 'workspace_id' | 'key_hash' | 'revoked_at'> &
  RowOf<Pick<WorkspaceOnPlan, 'language' | 'limitOverrides'>> & {
    workspace_deleted_at: Date | null;
    plan_limits: PlanLimits;
    plan_hosted_credits: boolean;
  };

const SQL = defineSql(__filename, {
  /** The key with its workspace and the workspace's plan's values, in one statement: the gateway's hot path. */
  findResolvable: sql<ResolvableKeyRow>(`
    SELECT k."id", k."workspace_id", k."key_hash", k."revoked_at",
      w."language", w."limit_overrides", w."deleted_at" AS "workspace_deleted_at", ${PLAN_LIMITS_JSON} AS "plan_limits",
      p."hosted_credits" AS "plan_hosted_credits"
    FROM "catalog"."api_keys" k
    JOIN "catalog"."workspaces" w ON w."id" = k."workspace_id"
    JOIN "catalog"."plans" p ON p."key" = w."plan_key"
    WHERE k."prefix" = $1`),
  /** $1 key, $2 now, $3 the last use before which it is written again. */
  touchLastUsed: sql(`
    UPDATE "catalog"."api_keys" SET "last_used_at" = $2
    WHERE "id" = $1 AND ("last_used_at" IS NULL OR "last_used_at" < $3)`),
});

/** Every query of API keys. */
@Injectable()
export class ApiKeysRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** A new key row. */
  insert(values: Pick<ApiKeyEntity, 'workspaceId' | 'prefix' | 'keyHash'>): Promise<ApiKeyEntity> {
    const keys = this.table(ApiKeyEntity);
    return keys.save(keys.create(values));
  }

  /** The workspace's keys, revoked ones included, oldest first. */
  listForWorkspace(workspaceId: string): Promise<ApiKeyEntity[]> {
    return this.table(ApiKeyEntity).find({ where: { workspaceId }, order: { createdAt: 'ASC' } });
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.table(ApiKeyEntity).findOneBy({ id });
  }

  findByPrefix(prefix: string): Promise<ApiKeyEntity | null> {
    return this.table(ApiKeyEntity).findOneBy({ prefix });
  }

  /** The key with this prefix with what resolving it needs of its workspace and plan, or null. */
  async findResolvable(prefix: string): Promise<ResolvableKey | null> {
    const row = await this.row(SQL.findResolvable, [prefix]);
    if (!row) return null;
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      keyHash: row.key_hash,
      revokedAt: row.revoked_at,
      workspace: {
        language: row.language,
        limitOverrides: row.limit_overrides,
        deletedAt: row.workspace_deleted_at,
        planLimits: row.plan_limits,
        planHostedCredits: row.plan_hosted_credits,
      },
    };
  }

  save(key: ApiKeyEntity): Promise<ApiKeyEntity> {
    return this.table(ApiKeyEntity).save(key);
  }

  /**
   * Sets last_used_at to `now` unless it was written less than `resolutionMs` ago: a key in
   * steady use costs one write per resolution window, not one per request.
   */
  async touchLastUsed(id: string, now: Date, resolutionMs: number): Promise<void> {
    await this.execute(SQL.touchLastUsed, [id, now, new Date(now.getTime() - resolutionMs)]);
  }
}
