import { Controller } from '@nestjs/common';
import {
  CreateRateLimitRequest,
  GovernanceAdminPatterns,
  RateLimitIdRequest,
  UpdateRateLimitRequest,
  WorkspaceIdRequest,
  type RateLimitView,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { RateLimitsService } from './rate-limits.service';

@Controller()
export class RateLimitsController {
  constructor(private readonly limits: RateLimitsService) {}

  @RpcHandler(GovernanceAdminPatterns.listRateLimits)
  list(request: WorkspaceIdRequest): Promise<RateLimitView[]> {
    return this.limits.list(request.workspace_id);
  }

  @RpcHandler(GovernanceAdminPatterns.createRateLimit)
  create(request: CreateRateLimitRequest): Promise<RateLimitView> {
    return this.limits.create(request.workspace_id, request.rate_limit);
  }

  @RpcHandler(GovernanceAdminPatterns.getRateLimit)
  get(request: RateLimitIdRequest): Promise<RateLimitView> {
    return this.limits.get(request.workspace_id, request.rate_limit_id);
  }

  @RpcHandler(GovernanceAdminPatterns.updateRateLimit)
  update(request: UpdateRateLimitRequest): Promise<RateLimitView> {
    return this.limits.update(request.workspace_id, request.rate_limit_id, request.rate_limit);
  }

  @RpcHandler(GovernanceAdminPatterns.deleteRateLimit)
  delete(request: RateLimitIdRequest): Promise<{ id: string }> {
    return this.limits.delete(request.workspace_id, request.rate_limit_id);
  }
}
