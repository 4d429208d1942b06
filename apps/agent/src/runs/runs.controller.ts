import { Controller } from '@nestjs/common';
import {
  AcceptAgentRunRequest,
  AgentPatterns,
  AgentRunRequest,
  type AcceptedRun,
  type AgentInvokeResponse,
  type AgentStreamEvent,
} from '@waggle/contracts';
import { RpcHandler, RunEventLog } from '@waggle/platform';
import type { Observable } from 'rxjs';
import { AgentRunner } from './agent-runner.service';
import { BackgroundAgentRuns } from './background-agent-runs';

@Controller()
export class RunsController {
  constructor(
    private readonly runner: AgentRunner,
    private readonly background: BackgroundAgentRuns,
    private readonly runEvents: RunEventLog,
  ) {}

  @RpcHandler(AgentPatterns.invokeAgent)
  invoke(request: AgentRunRequest): Promise<AgentInvokeResponse> {
    return this.runner.invoke(request);
  }

  @RpcHandler(AgentPatterns.acceptAgent)
  accept(request: AcceptAgentRunRequest): Promise<AcceptedRun> {
    return this.background.accept(request);
  }

  /** A background or idempotent stream's events are also kept (RunEventLog), so its client can resume or replay it. */
  @RpcHandler(AgentPatterns.streamAgent)
  stream(request: AgentRunRequest): Observable<AgentStreamEvent> {
    const events = this.runner.stream(request);
    return request.keep_events_ms === undefined
      ? events
      : this.runEvents.record(request.request_id, request.workspace_id, events, request.keep_events_ms);
  }
}
