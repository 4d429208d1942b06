import { Controller } from '@nestjs/common';
import { GovernanceAdminPatterns, SpendRequest, UsageSeriesRequest, type SpendView, type UsageSeriesView } from '@waggle/contracts';
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

  @RpcHandler(GovernanceAdminPatterns.usageSeries)
  series(request: UsageSeriesRequest): Promise<UsageSeriesView> {
    const { workspace_id: workspaceId, ...filter } = request;
    return this.spend.series(workspaceId, filter);
  }
}
