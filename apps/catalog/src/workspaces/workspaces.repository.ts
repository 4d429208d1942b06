import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AccountLanguage, PlanLimits } from '@waggle/contracts';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { PLAN_LIMITS_JSON } from '../plans/plans.repository';
import { WorkspaceEntity } from './entities/workspace.entity';
import type { Workspace, WorkspaceOnPlan } from './workspace';

type WorkspaceOnPlanRow = RowOf<WorkspaceEntity> & { plan_limits: PlanLimits; plan_hosted_credits: boolean };

/** Workspaces not deleted, each with its plan's values. */
const ACTIVE_ON_PLAN = `
  SELECT w.*, ${PLAN_LIMITS_JSON} AS "plan_limits", p."hosted_credits" AS "plan_hosted_credits"
  FROM "catalog"."workspaces" w JOIN "catalog"."plans" p ON p."key" = w."plan_key"
  WHERE w."deleted_at" IS NULL`;

const SQL = defineSql(__filename, {
  listActive: sql<WorkspaceOnPlanRow>(`${ACTIVE_ON_PLAN}
  ORDER BY w."created_at"`),
  findActive: sql<WorkspaceOnPlanRow>(`${ACTIVE_ON_PLAN} AND w."id" = $1`),
});

function toWorkspaceOnPlan(row: WorkspaceOnPlanRow): WorkspaceOnPlan {
  return {
    id: row.id,
    name: row.name,
    planKey: row.plan_key,
    language: row.language,
    limitOverrides: row.limit_overrides,
    createdAt: row.created_at,
    deletedAt: row.deleted_at,
    planLimits: row.plan_limits,
    planHostedCredits: row.plan_hosted_credits,
  };
}

/** Every query of workspaces. Only workspaces that are not deleted are ever found. */
@Injectable()
export class WorkspacesRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** A new workspace on a plan. */
  insert(values: { name: string; planKey: string; language: AccountLanguage }): Promise<Workspace> {
    const workspaces = this.table(WorkspaceEntity);
    return workspaces.save(workspaces.create({ ...values, limitOverrides: {}, deletedAt: null }));
  }

  /** Every workspace that is not deleted, with its plan's values, oldest first. */
  async listActive(): Promise<WorkspaceOnPlan[]> {
    return (await this.rows(SQL.listActive)).map(toWorkspaceOnPlan);
  }

  /** The workspace with its plan's values unless it is deleted, or null. */
  async findActive(id: string): Promise<WorkspaceOnPlan | null> {
    const row = await this.row(SQL.findActive, [id]);
    return row && toWorkspaceOnPlan(row);
  }

  async setPlan(id: string, planKey: string): Promise<void> {
    await this.table(WorkspaceEntity).update({ id }, { planKey });
  }

  async setLimitOverrides(id: string, limitOverrides: Partial<PlanLimits>): Promise<void> {
    await this.table(WorkspaceEntity).update({ id }, { limitOverrides });
  }

  /** Soft delete: the row stays for audit. */
  async markDeleted(id: string): Promise<void> {
    await this.table(WorkspaceEntity).update({ id }, { deletedAt: new Date() });
  }
}
