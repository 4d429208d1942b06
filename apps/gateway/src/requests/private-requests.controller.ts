import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { InvocationPatterns, sendRpc, type RequestLookup } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';

class ListRequestsQuery {
  @IsOptional()
  @IsString()
  @Length(1, 128)
  metadata_key?: string;

  @IsOptional()
  @IsString()
  @Length(0, 2048)
  metadata_value?: string;

  @IsOptional()
  @IsISO8601()
  from?: string;

  @IsOptional()
  @IsISO8601()
  to?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

/**
 * First-party: a workspace's request ledger, for a dashboard's log view. Not metered;
 * `GET /v1/private/requests?metadata_key=ticket&metadata_value=T-1&from=…&to=…&limit=…`.
 */
@ApiExcludeController()
@Controller('v1/private/requests')
@PrivateApiRoute()
export class PrivateRequestsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get()
  async list(@Query() query: ListRequestsQuery, @Req() request: AuthenticatedRequest): Promise<{ requests: RequestLookup[] }> {
    const requests = await sendRpc(this.rpc, InvocationPatterns.listRequests, { workspace_id: request.auth.workspace_id, ...query }, { timeoutMs: 30_000 });
    return { requests };
  }
}
