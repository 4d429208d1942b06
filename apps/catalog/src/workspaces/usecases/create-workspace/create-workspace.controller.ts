import { Controller } from '@nestjs/common';
import { CatalogPatterns, CreateWorkspaceRequest, type CreatedWorkspace } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { CreateWorkspaceService } from './create-workspace.service';

@Controller()
export class CreateWorkspaceController {
  constructor(private readonly workspaces: CreateWorkspaceService) {}

  @RpcHandler(CatalogPatterns.createWorkspace)
  create(request: CreateWorkspaceRequest): Promise<CreatedWorkspace> {
    return this.workspaces.create(request);
  }
}
