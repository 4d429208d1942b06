import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InvocationPatterns, ListRequestsRequest, PromptRunRequest, RequestLookupRequest, type PromptInvokeResponse, type PromptStreamEvent, type RequestLookup } from '@waggle/contracts';
import type { Observable } from 'rxjs';
import { RequestsService } from '../ledger/requests.service';
import { PromptRunner } from './prompt-runner.service';

@Controller()
export class RunsController {
  constructor(
    private readonly prompts: PromptRunner,
    private readonly requests: RequestsService,
  ) {}

  @MessagePattern(InvocationPatterns.invokePrompt)
  invoke(@Payload() request: PromptRunRequest): Promise<PromptInvokeResponse> {
    return this.prompts.invoke(request);
  }

  @MessagePattern(InvocationPatterns.getRequest)
  lookup(@Payload() request: RequestLookupRequest): Promise<RequestLookup> {
    return this.requests.get(request.workspace_id, request.request_id);
  }

  @MessagePattern(InvocationPatterns.listRequests)
  list(@Payload() query: ListRequestsRequest): Promise<RequestLookup[]> {
    return this.requests.list(query);
  }

  @MessagePattern(InvocationPatterns.streamPrompt)
  stream(@Payload() request: PromptRunRequest): Observable<PromptStreamEvent> {
    return this.prompts.stream(request);
  }
}
