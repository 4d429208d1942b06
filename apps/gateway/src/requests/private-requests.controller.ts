import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  CREDENTIAL_SOURCES,
  InvocationPatterns,
  ListRequestsFilter,
  REQUEST_STATUSES,
  send,
  type RequestListItem,
} from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { RequestLookupDto } from './requests.controller';

/** A ledger row: the public lookup's fields and who, with what, ran it. */
class RequestListItemDto extends RequestLookupDto {
  @ApiPropertyOptional({ type: 'string', description: 'The price version(s) `cost_micros` was computed with' })
  price_version!: string | null;

  @ApiPropertyOptional({ type: 'string', description: 'The end user label the caller gave' })
  user!: string | null;

  @ApiPropertyOptional({ type: 'string', enum: CREDENTIAL_SOURCES, description: "Whose provider credentials the run's model calls used" })
  credentials!: RequestListItem['credentials'];

  @ApiPropertyOptional({ type: 'string', format: 'uuid', description: 'The API key that started the run' })
  api_key_id!: string | null;

  @ApiPropertyOptional({
    type: 'string',
    description: 'The model that answered (a fallback when one did); null for a workflow run and a run that called no model',
  })
  model!: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: "A split variant's run: the target that served it" })
  split!: RequestListItem['split'];
}

class RequestListDto {
  @ApiProperty({ type: [RequestListItemDto] })
  requests!: RequestListItemDto[];
}

/**
 * First-party: a workspace's request ledger, for the console's Runs screen and any dashboard.
 * Not metered. Every filter narrows the same workspace's rows, newest first, a page at a time.
 */
@ApiTags('requests')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/requests')
@PrivateApiRoute()
export class PrivateRequestsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The workspace's runs, newest first, by any of the filters; the next page after `before`. */
  @Get()
  @ApiQuery({ name: 'from', required: false, type: String, description: 'Runs generated at or after this ISO 8601 instant' })
  @ApiQuery({ name: 'to', required: false, type: String, description: 'Runs generated before this ISO 8601 instant' })
  @ApiQuery({ name: 'status', required: false, enum: REQUEST_STATUSES })
  @ApiQuery({ name: 'artifact', required: false, type: String, description: "The artifact's id (`requestable_id`)" })
  @ApiQuery({ name: 'user', required: false, type: String, description: 'The end user label the caller gave' })
  @ApiQuery({ name: 'model', required: false, type: String, description: 'The model that answered (workflow runs name none)' })
  @ApiQuery({ name: 'api_key', required: false, type: String, description: 'The id of the API key that started the run' })
  @ApiQuery({ name: 'metadata_key', required: false, type: String, description: 'Runs whose metadata has this key' })
  @ApiQuery({
    name: 'metadata_value',
    required: false,
    type: String,
    description: "With metadata_key: the key's value, as a string, or the number or boolean it reads as",
  })
  @ApiQuery({
    name: 'min_cost_micros',
    required: false,
    type: 'integer',
    minimum: 0,
    description: 'Runs that cost at least this (micro-USD)',
  })
  @ApiQuery({
    name: 'max_cost_micros',
    required: false,
    type: 'integer',
    minimum: 0,
    description: 'Runs that cost at most this (micro-USD)',
  })
  @ApiQuery({ name: 'limit', required: false, type: 'integer', minimum: 1, maximum: 1000, description: 'Default 100' })
  @ApiQuery({ name: 'before', required: false, type: String, description: 'The last `request_id` of the page before' })
  @ApiOkResponse({ type: RequestListDto })
  @ApiResponse({ status: 422, description: 'An invalid filter (validation_error)', type: ErrorBodyDto })
  async list(@Query() query: ListRequestsFilter, @Req() request: AuthenticatedRequest): Promise<{ requests: RequestListItem[] }> {
    const requests = await send(this.rpc, InvocationPatterns.listRequests, { workspace_id: request.auth.workspace_id, ...query });
    return { requests };
  }
}
