import { Controller, Inject } from '@nestjs/common';
import { GovernanceKeys, GovernancePatterns, LoadGovernanceProjectionRequest } from '@waggle/contracts';
import { REDIS_CLIENT, RpcHandler } from '@waggle/platform';
import type Redis from 'ioredis';

/**
 * PLACEHOLDER until the projection writer of the budgets, rate limits and credits tables is merged
 * (it answers this pattern then, and this controller is deleted): an empty projection (version 0,
 * no budget, no limit), written only when none is there, so the gateway's admission works on a
 * workspace nobody configured.
 */
@Controller()
export class GovernanceProjectionPlaceholderController {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  @RpcHandler(GovernancePatterns.loadProjection)
  async load(request: LoadGovernanceProjectionRequest): Promise<{ version: number }> {
    await this.redis.hsetnx(GovernanceKeys.projection(request.workspace_id), 'version', '0');
    return { version: 0 };
  }
}
