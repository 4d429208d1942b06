import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  GovernanceAdminPatterns,
  MAX_USAGE_SERIES_BUCKETS,
  send,
  SPEND_GROUPS,
  SpendFilter,
  USAGE_SERIES_BUCKETS,
  USAGE_SERIES_GROUPS,
  UsageSeriesFilter,
  type CreditsView,
  type SpendView,
  type UsageSeriesView,
} from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { CreditsDto, SpendDto, UsageSeriesDto } from './governance.dto';

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

  /**
   * The request ledger over time, for a dashboard: per UTC hour or day (and per model or artifact),
   * the runs, the failed ones, tokens, cost, the p95 latency, and the runs still queued or running.
   */
  @Get('usage/series')
  @ApiQuery({
    name: 'from',
    required: false,
    type: String,
    description: "First instant (ISO 8601), taken down to its bucket's start; default to less 24 h",
  })
  @ApiQuery({ name: 'to', required: false, type: String, description: 'End instant (ISO 8601), excluded; default now' })
  @ApiQuery({ name: 'bucket', required: false, enum: USAGE_SERIES_BUCKETS, description: 'Default hour' })
  @ApiQuery({ name: 'group_by', required: false, enum: USAGE_SERIES_GROUPS, description: 'Default none: one series' })
  @ApiOkResponse({ type: UsageSeriesDto })
  @ApiResponse({
    status: 422,
    description: `An invalid filter, to not after from, or a range over ${MAX_USAGE_SERIES_BUCKETS} buckets (validation_error)`,
    type: ErrorBodyDto,
  })
  usageSeries(@Query() query: UsageSeriesFilter, @Req() request: AuthenticatedRequest): Promise<UsageSeriesView> {
    return send(this.rpc, GovernanceAdminPatterns.usageSeries, { workspace_id: request.auth.workspace_id, ...query });
  }
}
