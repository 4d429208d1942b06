import { Injectable } from '@nestjs/common';
import type { CreatedWorkspace, CreateWorkspaceRequest } from '@waggle/contracts';
import { ApiKeysService } from '../../../api-keys/api-keys.service';
import { PlansService } from '../../../plans/plans.service';
import { WorkspacesRepository } from '../../workspaces.repository';
import { toWorkspaceSummary, WorkspacesService } from '../../workspaces.service';

/** New workspaces get this plan unless the operator names another. */
export const DEFAULT_PLAN = 'developer';

/** A workspace and its first API key, in one transaction: neither exists without the other. */
@Injectable()
export class CreateWorkspaceService {
  constructor(
    private readonly workspaceRows: WorkspacesRepository,
    private readonly plans: PlansService,
    private readonly workspaces: WorkspacesService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async create(request: CreateWorkspaceRequest): Promise<CreatedWorkspace> {
    const plan = await this.plans.get(request.plan ?? DEFAULT_PLAN);
    return this.workspaceRows.transaction(async () => {
      const workspace = await this.workspaces.insert({ name: request.name, plan, language: request.language ?? 'en' });
      const apiKey = await this.apiKeys.create(workspace.id);
      return { workspace: toWorkspaceSummary(workspace), api_key: apiKey };
    });
  }
}
