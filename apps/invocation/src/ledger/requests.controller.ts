import { Controller } from '@nestjs/common';
import { InvocationPatterns, ListRequestsRequest, RequestLookupRequest, type RequestListItem, type RequestLookup } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { RequestsService } from './requests.service';

@Controller()
export class RequestsController {
  constructor(private readonly requests: RequestsService) {}

  @RpcHandler(InvocationPatterns.getRequest)
  lookup(request: RequestLookupRequest): Promise<RequestLookup> {
    return this.requests.get(request.workspace_id, request.request_id);
  }

  @RpcHandler(InvocationPatterns.listRequests)
  list(query: ListRequestsRequest): Promise<RequestListItem[]> {
    return this.requests.list(query);
  }
}
