import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CatalogPatterns,
  CreateWorkspaceRequest,
  SetWorkspaceLimitsRequest,
  SetWorkspacePlanRequest,
  WorkspaceIdRequest,
  type CreatedWorkspace,
  type WorkspaceSummary,
} from '@waggle/contracts';
import { toWorkspaceSummary, WorkspacesService } from './workspaces.service';

@Controller()
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @MessagePattern(CatalogPatterns.createWorkspace)
  create(@Payload() request: CreateWorkspaceRequest): Promise<CreatedWorkspace> {
    return this.workspaces.create(request);
  }

  @MessagePattern(CatalogPatterns.listWorkspaces)
  list(): Promise<WorkspaceSummary[]> {
    return this.workspaces.list();
  }

  @MessagePattern(CatalogPatterns.getWorkspace)
  async get(@Payload() request: WorkspaceIdRequest): Promise<WorkspaceSummary> {
    return toWorkspaceSummary(await this.workspaces.get(request.workspace_id));
  }

  @MessagePattern(CatalogPatterns.setWorkspacePlan)
  setPlan(@Payload() request: SetWorkspacePlanRequest): Promise<WorkspaceSummary> {
    return this.workspaces.setPlan(request.workspace_id, request.plan);
  }

  @MessagePattern(CatalogPatterns.deleteWorkspace)
  delete(@Payload() request: WorkspaceIdRequest): Promise<WorkspaceSummary> {
    return this.workspaces.delete(request.workspace_id);
  }

  @MessagePattern(CatalogPatterns.setWorkspaceLimits)
  setLimits(@Payload() request: SetWorkspaceLimitsRequest): Promise<WorkspaceSummary> {
    const { workspace_id: id, ...patch } = request;
    return this.workspaces.setLimits(id, patch);
  }
}
