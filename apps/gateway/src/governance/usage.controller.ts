import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { GovernanceAdminPatterns, send, SPEND_GROUPS, SpendFilter, type CreditsView, type SpendView } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { CreditsDto, SpendDto } from './governance.dto';

/**
 * The workspace's hosted credits and spend (the spec's decisions on usage governance). Credits are
 * read-only here: only the operator tops them up (CLI), so a workspace's key cannot mint credits.
 */
@ApiTags('usage')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private')
@PrivateApiRoute()
export class UsageController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The hosted credit balance, whether the plan applies it, and the latest top-ups and adjustments. */
  @Get('credits')
  @ApiOkResponse({ type: CreditsDto })
  credits(@Req() request: AuthenticatedRequest): Promise<CreditsView> {
    return send(this.rpc, GovernanceAdminPatterns.showCredits, { workspace_id: request.auth.workspace_id });
  }

  /** Sums of the runs' cost and count over UTC days, per day, model, API key or end user. */
  @Get('spend')
  @ApiQuery({ name: 'group_by', required: false, enum: SPEND_GROUPS, description: 'Default day' })
  @ApiQuery({ name: 'from', required: false, type: String, description: 'First UTC day (YYYY-MM-DD); default the first of this month' })
  @ApiQuery({ name: 'to', required: false, type: String, description: 'Last UTC day, included; default the last of this month' })
  @ApiOkResponse({ type: SpendDto })
  @ApiResponse({
    status: 422,
    description: 'An invalid filter, a day that does not exist, or a range over 366 days (validation_error)',
    type: ErrorBodyDto,
  })
  spend(@Query() query: SpendFilter, @Req() request: AuthenticatedRequest): Promise<SpendView> {
    return send(this.rpc, GovernanceAdminPatterns.spend, { workspace_id: request.auth.workspace_id, ...query });
  }
}
