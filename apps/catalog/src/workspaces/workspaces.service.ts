import { Injectable } from '@nestjs/common';
import type { AccountLanguage, LimitsPatch, PlanSummary, WorkspaceSummary } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { PlansService, presentLimits } from '../plans/plans.service';
import { effectiveLimits, type WorkspaceOnPlan } from './workspace';
import { WorkspacesRepository } from './workspaces.repository';

export function toWorkspaceSummary(workspace: WorkspaceOnPlan): WorkspaceSummary {
  return {
    id: workspace.id,
    name: workspace.name,
    plan: workspace.planKey,
    hosted_credits: workspace.planHostedCredits,
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

  /** A new workspace on a plan (inside the caller's transaction, if one is open). */
  async insert(values: { name: string; plan: PlanSummary; language: AccountLanguage }): Promise<WorkspaceOnPlan> {
    const workspace = await this.workspaces.insert({ name: values.name, planKey: values.plan.key, language: values.language });
    return { ...workspace, planLimits: values.plan.limits, planHostedCredits: values.plan.hosted_credits };
  }

  async list(): Promise<WorkspaceSummary[]> {
    const workspaces = await this.workspaces.listActive();
    return workspaces.map(toWorkspaceSummary);
  }

  /** A workspace that exists and is not deleted; otherwise `not_found`. */
  async get(id: string): Promise<WorkspaceOnPlan> {
    const workspace = await this.workspaces.findActive(id);
    if (!workspace) throw new WaggleException('not_found', { detail: 'workspace_not_found' });
    return workspace;
  }

  async setPlan(id: string, planKey: string): Promise<WorkspaceSummary> {
    const [workspace, plan] = await Promise.all([this.get(id), this.plans.get(planKey)]);
    await this.workspaces.setPlan(id, plan.key);
    return toWorkspaceSummary({ ...workspace, planKey: plan.key, planLimits: plan.limits, planHostedCredits: plan.hosted_credits });
  }

  /** Soft delete: the workspace and its keys stop working; its rows stay for audit. */
  async delete(id: string): Promise<WorkspaceSummary> {
    const workspace = await this.get(id);
    await this.workspaces.markDeleted(id);
    return toWorkspaceSummary(workspace);
  }

  async setLimits(id: string, patch: LimitsPatch): Promise<WorkspaceSummary> {
    const workspace = await this.get(id);
    const limitOverrides = { ...workspace.limitOverrides, ...presentLimits(patch) };
    await this.workspaces.setLimitOverrides(id, limitOverrides);
    return toWorkspaceSummary({ ...workspace, limitOverrides });
  }
}
