import { Controller } from '@nestjs/common';
import { GovernanceAdminPatterns, SpendRequest, type SpendView } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { SpendService } from './spend.service';

@Controller()
export class SpendController {
  constructor(private readonly spend: SpendService) {}

  @RpcHandler(GovernanceAdminPatterns.spend)
  read(request: SpendRequest): Promise<SpendView> {
    const { workspace_id: workspaceId, ...filter } = request;
    return this.spend.read(workspaceId, filter);
  }
}
