import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { CreatedWorkspace, CreateWorkspaceRequest, LimitsPatch, WorkspaceSummary } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { IsNull, type DataSource, type Repository } from 'typeorm';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { PlansService, presentLimits } from '../plans/plans.service';
import { effectiveLimits } from './workspace-limits';
import { WorkspaceEntity } from './workspace.entity';

export const DEFAULT_PLAN = 'developer';

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
    @InjectRepository(WorkspaceEntity) private readonly workspaces: Repository<WorkspaceEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly plans: PlansService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /** A workspace and its first API key, in one transaction. */
  async create(request: CreateWorkspaceRequest): Promise<CreatedWorkspace> {
    const plan = await this.plans.get(request.plan ?? DEFAULT_PLAN);
    return this.dataSource.transaction(async (manager) => {
      const workspace = await manager.save(
        manager.create(WorkspaceEntity, { name: request.name, planKey: plan.key, language: request.language ?? 'en', limitOverrides: {} }),
      );
      workspace.plan = plan;
      const apiKey = await this.apiKeys.create(workspace.id, manager);
      return { workspace: toWorkspaceSummary(workspace), api_key: apiKey };
    });
  }

  async list(): Promise<WorkspaceSummary[]> {
    const workspaces = await this.workspaces.find({ where: { deletedAt: IsNull() }, relations: { plan: true }, order: { createdAt: 'ASC' } });
    return workspaces.map(toWorkspaceSummary);
  }

  async get(id: string): Promise<WorkspaceEntity> {
    const workspace = await this.workspaces.findOne({ where: { id, deletedAt: IsNull() }, relations: { plan: true } });
    if (!workspace) throw new WaggleException('not_found', { message: 'Workspace not found' });
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
