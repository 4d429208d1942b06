import { Controller } from '@nestjs/common';
import {
  AgentPatterns,
  AgentRunRequest,
  RequestLookupRequest,
  type AgentInvokeResponse,
  type AgentStreamEvent,
  type QueuedRunCancellation,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import type { Observable } from 'rxjs';
import { AgentRunner } from './agent-runner.service';
import { AgentTriggerWorker } from './agent-trigger.worker';

@Controller()
export class RunsController {
  constructor(
    private readonly runner: AgentRunner,
    private readonly triggers: AgentTriggerWorker,
  ) {}

  @RpcHandler(AgentPatterns.invokeAgent)
  invoke(request: AgentRunRequest): Promise<AgentInvokeResponse> {
    return this.runner.invoke(request);
  }

  @RpcHandler(AgentPatterns.streamAgent)
  stream(request: AgentRunRequest): Observable<AgentStreamEvent> {
    return this.runner.stream(request);
  }

  /** A cancel of an agent trigger still waiting in `agent-runs` (invocation's RunCanceller asks). */
  @RpcHandler(AgentPatterns.cancelQueuedRun)
  async cancelQueued(request: RequestLookupRequest): Promise<QueuedRunCancellation> {
    return { cancelled: await this.triggers.cancelWaiting(request.workspace_id, request.request_id) };
  }
}
