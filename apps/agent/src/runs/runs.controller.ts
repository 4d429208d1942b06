import { Controller } from '@nestjs/common';
import { AgentPatterns, AgentRunRequest, type AgentInvokeResponse, type AgentStreamEvent } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import type { Observable } from 'rxjs';
import { AgentRunner } from './agent-runner.service';

@Controller()
export class RunsController {
  constructor(private readonly runner: AgentRunner) {}

  @RpcHandler(AgentPatterns.invokeAgent)
  invoke(request: AgentRunRequest): Promise<AgentInvokeResponse> {
    return this.runner.invoke(request);
  }

  @RpcHandler(AgentPatterns.streamAgent)
  stream(request: AgentRunRequest): Observable<AgentStreamEvent> {
    return this.runner.stream(request);
  }
}
