import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  BudgetAlertsFilter,
  BudgetChanges,
  BudgetDefinition,
  GovernanceAdminPatterns,
  send,
  type BudgetAlertView,
  type BudgetView,
  type BudgetWritten,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import {
  BudgetAlertListDto,
  BudgetChangesDoc,
  BudgetDefinitionDoc,
  BudgetDto,
  BudgetListDto,
  BudgetWrittenDto,
  DeletedDto,
} from './governance.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BUDGET_PARAM = { name: 'id', type: String, format: 'uuid', description: "The budget's id" } as const;
const NOT_FOUND = {
  status: 404,
  description: "Budget not found: unknown, or another workspace's (resource_not_found)",
  type: ErrorBodyDto,
} as const;
const BAD_REQUEST = { status: 400, description: 'A body that is not JSON (validation_error)', type: ErrorBodyDto } as const;
const INVALID = {
  status: 422,
  description:
    'Invalid body (validation_error): a field, an alert_url the URL policy refuses, an api_key scope_id that is not an active key of the workspace, the 100 budgets of a workspace, or a budget of that scope and period already there',
  type: ErrorBodyDto,
} as const;

/** Any id that cannot name a budget answers 404 without asking the invocation service. */
export function checkedGovernanceId(id: string, detail: 'budget_not_found' | 'rate_limit_not_found'): string {
  if (!UUID.test(id)) throw new WaggleException('resource_not_found', { detail });
  return id;
}

/**
 * The workspace's spend caps (the spec's decisions on usage governance), owned by the invocation
 * service, which projects them into Redis for admission; the workspace is the API key's.
 */
@ApiTags('budgets')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/budgets')
@PrivateApiRoute()
export class BudgetsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The workspace's budgets, each with its spend in the current UTC period. */
  @Get()
  @ApiOkResponse({ type: BudgetListDto })
  async list(@Req() request: AuthenticatedRequest): Promise<{ budgets: BudgetView[] }> {
    return { budgets: await send(this.rpc, GovernanceAdminPatterns.listBudgets, { workspace_id: request.auth.workspace_id }) };
  }

  /** A new budget; with an alert_url, the answer carries its webhook_secret, this once. */
  @Post()
  @HttpCode(201)
  @ApiBody({ type: BudgetDefinitionDoc })
  @ApiResponse({ status: 201, type: BudgetWrittenDto })
  @ApiResponse(BAD_REQUEST)
  @ApiResponse(INVALID)
  create(@Body() body: BudgetDefinition, @Req() request: AuthenticatedRequest): Promise<BudgetWritten> {
    return send(this.rpc, GovernanceAdminPatterns.createBudget, { workspace_id: request.auth.workspace_id, budget: body });
  }

  @Get(':id')
  @ApiParam(BUDGET_PARAM)
  @ApiOkResponse({ type: BudgetDto })
  @ApiResponse(NOT_FOUND)
  get(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<BudgetView> {
    return send(this.rpc, GovernanceAdminPatterns.getBudget, {
      workspace_id: request.auth.workspace_id,
      budget_id: checkedGovernanceId(id, 'budget_not_found'),
    });
  }

  /** Changes the limit, thresholds or alert URL; the first alert_url a budget gets answers its webhook_secret, this once. */
  @Patch(':id')
  @ApiParam(BUDGET_PARAM)
  @ApiBody({ type: BudgetChangesDoc })
  @ApiOkResponse({ type: BudgetWrittenDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(BAD_REQUEST)
  @ApiResponse({ ...INVALID, description: 'Invalid body (validation_error), or an alert_url the URL policy refuses' })
  update(@Param('id') id: string, @Body() body: BudgetChanges, @Req() request: AuthenticatedRequest): Promise<BudgetWritten> {
    return send(this.rpc, GovernanceAdminPatterns.updateBudget, {
      workspace_id: request.auth.workspace_id,
      budget_id: checkedGovernanceId(id, 'budget_not_found'),
      budget: body,
    });
  }

  @Delete(':id')
  @ApiParam(BUDGET_PARAM)
  @ApiOkResponse({ type: DeletedDto })
  @ApiResponse(NOT_FOUND)
  async remove(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ message: string }> {
    await send(this.rpc, GovernanceAdminPatterns.deleteBudget, {
      workspace_id: request.auth.workspace_id,
      budget_id: checkedGovernanceId(id, 'budget_not_found'),
    });
    return { message: 'Budget deleted successfully' };
  }
}

/** Every threshold a budget of the workspace crossed, newest first (the signed webhooks' records). */
@ApiTags('budgets')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/budget_alerts')
@PrivateApiRoute()
export class BudgetAlertsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get()
  @ApiQuery({ name: 'budget_id', required: false, type: String, description: "Only this budget's alerts" })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: 'At most this many (1 to 1000, default 100)' })
  @ApiOkResponse({ type: BudgetAlertListDto })
  @ApiResponse({ status: 422, description: 'An invalid filter (validation_error)', type: ErrorBodyDto })
  async list(@Query() query: BudgetAlertsFilter, @Req() request: AuthenticatedRequest): Promise<{ budget_alerts: BudgetAlertView[] }> {
    return {
      budget_alerts: await send(this.rpc, GovernanceAdminPatterns.listBudgetAlerts, { workspace_id: request.auth.workspace_id, ...query }),
    };
  }
}
