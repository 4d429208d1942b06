import { Controller } from '@nestjs/common';
import { GovernanceAdminPatterns, ShowCreditsRequest, TopUpCreditsRequest, type CreditsView } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { CreditsService } from './credits.service';

@Controller()
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @RpcHandler(GovernanceAdminPatterns.showCredits)
  show(request: ShowCreditsRequest): Promise<CreditsView> {
    return this.credits.show(request.workspace_id, request.entries);
  }

  /** The operator's (CLI): the gateway has no route that sends it. */
  @RpcHandler(GovernanceAdminPatterns.addCredits)
  add(request: TopUpCreditsRequest): Promise<CreditsView> {
    return this.credits.add(request);
  }
}
