import { Controller } from '@nestjs/common';
import { GovernancePatterns, LoadGovernanceProjectionRequest } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { GovernanceProjection } from './governance-projection';

@Controller()
export class GovernanceProjectionController {
  constructor(private readonly projection: GovernanceProjection) {}

  /** The gateway found no projection for the workspace: write it (and seed what Redis lost). */
  @RpcHandler(GovernancePatterns.loadProjection)
  load(request: LoadGovernanceProjectionRequest): Promise<{ version: number }> {
    return this.projection.load(request.workspace_id);
  }
}
