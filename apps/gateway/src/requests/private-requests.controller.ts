import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { InvocationPatterns, ListRequestsFilter, send, type RequestListItem } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';

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
  async list(@Query() query: ListRequestsFilter, @Req() request: AuthenticatedRequest): Promise<{ requests: RequestListItem[] }> {
    const requests = await send(this.rpc, InvocationPatterns.listRequests, { workspace_id: request.auth.workspace_id, ...query });
    return { requests };
  }
}
