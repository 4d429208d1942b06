import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { GovernanceAdminPatterns, RateLimitChanges, RateLimitDefinition, send, type RateLimitView } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { checkedGovernanceId } from './budgets.controller';
import { DeletedDto, RateLimitChangesDoc, RateLimitDefinitionDoc, RateLimitDto, RateLimitListDto } from './governance.dto';

const LIMIT_PARAM = { name: 'id', type: String, format: 'uuid', description: "The rate limit's id" } as const;
const NOT_FOUND = {
  status: 404,
  description: "Rate limit not found: unknown, or another workspace's (resource_not_found)",
  type: ErrorBodyDto,
} as const;
const BAD_REQUEST = { status: 400, description: 'A body that is not JSON (validation_error)', type: ErrorBodyDto } as const;

/**
 * Requests and tokens per minute of the workspace's API keys and end users (the spec's decisions
 * on usage governance), owned by the invocation service, which projects them into Redis for admission.
 */
@ApiTags('rate_limits')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/rate_limits')
@PrivateApiRoute()
export class RateLimitsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get()
  @ApiOkResponse({ type: RateLimitListDto })
  async list(@Req() request: AuthenticatedRequest): Promise<{ rate_limits: RateLimitView[] }> {
    return { rate_limits: await send(this.rpc, GovernanceAdminPatterns.listRateLimits, { workspace_id: request.auth.workspace_id }) };
  }

  @Post()
  @HttpCode(201)
  @ApiBody({ type: RateLimitDefinitionDoc })
  @ApiResponse({ status: 201, type: RateLimitDto })
  @ApiResponse(BAD_REQUEST)
  @ApiResponse({
    status: 422,
    description:
      'Invalid body (validation_error): a field, no rate at all, an api_key scope_id that is not an active key of the workspace, the 100 rate limits of a workspace, or a limit of that scope already there',
    type: ErrorBodyDto,
  })
  create(@Body() body: RateLimitDefinition, @Req() request: AuthenticatedRequest): Promise<RateLimitView> {
    return send(this.rpc, GovernanceAdminPatterns.createRateLimit, { workspace_id: request.auth.workspace_id, rate_limit: body });
  }

  @Get(':id')
  @ApiParam(LIMIT_PARAM)
  @ApiOkResponse({ type: RateLimitDto })
  @ApiResponse(NOT_FOUND)
  get(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<RateLimitView> {
    return send(this.rpc, GovernanceAdminPatterns.getRateLimit, {
      workspace_id: request.auth.workspace_id,
      rate_limit_id: checkedGovernanceId(id, 'rate_limit_not_found'),
    });
  }

  /** Changes the rates given (null unsets one; one must stay set). */
  @Patch(':id')
  @ApiParam(LIMIT_PARAM)
  @ApiBody({ type: RateLimitChangesDoc })
  @ApiOkResponse({ type: RateLimitDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(BAD_REQUEST)
  @ApiResponse({ status: 422, description: 'Invalid body, or no rate left (validation_error)', type: ErrorBodyDto })
  update(@Param('id') id: string, @Body() body: RateLimitChanges, @Req() request: AuthenticatedRequest): Promise<RateLimitView> {
    return send(this.rpc, GovernanceAdminPatterns.updateRateLimit, {
      workspace_id: request.auth.workspace_id,
      rate_limit_id: checkedGovernanceId(id, 'rate_limit_not_found'),
      rate_limit: body,
    });
  }

  @Delete(':id')
  @ApiParam(LIMIT_PARAM)
  @ApiOkResponse({ type: DeletedDto })
  @ApiResponse(NOT_FOUND)
  async remove(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ message: string }> {
    await send(this.rpc, GovernanceAdminPatterns.deleteRateLimit, {
      workspace_id: request.auth.workspace_id,
      rate_limit_id: checkedGovernanceId(id, 'rate_limit_not_found'),
    });
    return { message: 'Rate limit deleted successfully' };
  }
}
