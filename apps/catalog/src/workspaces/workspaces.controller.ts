import { Controller } from '@nestjs/common';
import { RpcHandler } from '@waggle/platform';
import {
  CatalogPatterns,
  SetWorkspaceLimitsRequest,
  SetWorkspacePlanRequest,
  WorkspaceIdRequest,
  type WorkspaceSummary,
} from '@waggle/contracts';
import { toWorkspaceSummary, WorkspacesService } from './workspaces.service';

@Controller()
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @RpcHandler(CatalogPatterns.listWorkspaces)
  list(): Promise<WorkspaceSummary[]> {
    return this.workspaces.list();
  }

  @RpcHandler(CatalogPatterns.getWorkspace)
  async get(request: WorkspaceIdRequest): Promise<WorkspaceSummary> {
    return toWorkspaceSummary(await this.workspaces.get(request.workspace_id));
  }

  @RpcHandler(CatalogPatterns.setWorkspacePlan)
  setPlan(request: SetWorkspacePlanRequest): Promise<WorkspaceSummary> {
    return this.workspaces.setPlan(request.workspace_id, request.plan);
  }

  @RpcHandler(CatalogPatterns.deleteWorkspace)
  delete(request: WorkspaceIdRequest): Promise<WorkspaceSummary> {
    return this.workspaces.delete(request.workspace_id);
  }

  @RpcHandler(CatalogPatterns.setWorkspaceLimits)
  setLimits(request: SetWorkspaceLimitsRequest): Promise<WorkspaceSummary> {
    const { workspace_id: id, ...patch } = request;
    return this.workspaces.setLimits(id, patch);
  }
}
