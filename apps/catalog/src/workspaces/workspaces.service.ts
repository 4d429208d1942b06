import { Injectable } from '@nestjs/common';
import type { AccountLanguage, LimitsPatch, WorkspaceSummary } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { EntityManager } from 'typeorm';
import type { PlanEntity } from '../plans/plan.entity';
import { PlansService, presentLimits } from '../plans/plans.service';
import { effectiveLimits } from './workspace-limits';
import type { WorkspaceEntity } from './workspace.entity';
import { WorkspacesRepository } from './workspaces.repository';

export function toWorkspaceSummary(workspace: WorkspaceEntity): WorkspaceSummary {
  return {
    id: workspace.id,
    name: workspace.name,
    plan: workspace.planKey,
    language: workspace.language,
    limit_overrides: workspace.limitOverrides,
    limits: effectiveLimits(workspace),
    created_at: workspace.createdAt.toISOString(),
  };
}

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly plans: PlansService,
  ) {}

  /** A new workspace on a plan, inside the caller's transaction. */
  insert(manager: EntityManager, values: { name: string; plan: PlanEntity; language: AccountLanguage }): Promise<WorkspaceEntity> {
    return this.workspaces.insert(values, manager);
  }

  async list(): Promise<WorkspaceSummary[]> {
    const workspaces = await this.workspaces.listActive();
    return workspaces.map(toWorkspaceSummary);
  }

  /** A workspace that exists and is not deleted (inside the caller's transaction when given); otherwise `not_found`. */
  async get(id: string, manager?: EntityManager): Promise<WorkspaceEntity> {
    const workspace = await this.workspaces.findActive(id, manager);
    if (!workspace) throw new WaggleException('not_found', { detail: 'workspace_not_found' });
    return workspace;
  }

  async setPlan(id: string, planKey: string): Promise<WorkspaceSummary> {
    const [workspace, plan] = await Promise.all([this.get(id), this.plans.get(planKey)]);
    workspace.planKey = plan.key;
    workspace.plan = plan;
    return toWorkspaceSummary(await this.workspaces.save(workspace));
  }

  /** Soft delete: the workspace and its keys stop working; its rows stay for audit. */
  async delete(id: string): Promise<WorkspaceSummary> {
    const workspace = await this.get(id);
    workspace.deletedAt = new Date();
    return toWorkspaceSummary(await this.workspaces.save(workspace));
  }

  async setLimits(id: string, patch: LimitsPatch): Promise<WorkspaceSummary> {
    const workspace = await this.get(id);
    workspace.limitOverrides = { ...workspace.limitOverrides, ...presentLimits(patch) };
    return toWorkspaceSummary(await this.workspaces.save(workspace));
  }
}
