import { Controller } from '@nestjs/common';
import {
  AcceptAgentRunRequest,
  AgentPatterns,
  AgentRunRequest,
  CallMcpToolRequest,
  RequestLookupRequest,
  type AcceptedRun,
  type AgentInvokeResponse,
  type AgentStreamEvent,
  type McpToolCallAnswer,
  type QueuedRunCancellation,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { RunEventLog } from '@waggle/runs';
import type { Observable } from 'rxjs';
import { AgentRunner } from './agent-runner.service';
import { AgentTriggerWorker } from './agent-trigger.worker';
import { BackgroundAgentRuns } from './background-agent-runs';
import { McpToolCalls } from './mcp-tool-calls';

@Controller()
export class RunsController {
  constructor(
    private readonly runner: AgentRunner,
    private readonly triggers: AgentTriggerWorker,
    private readonly background: BackgroundAgentRuns,
    private readonly runEvents: RunEventLog,
    private readonly mcpTools: McpToolCalls,
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

  /** A cancel of an agent trigger still waiting in `agent-runs` (invocation's RunCanceller asks). */
  @RpcHandler(AgentPatterns.cancelQueuedRun)
  async cancelQueued(request: RequestLookupRequest): Promise<QueuedRunCancellation> {
    return { cancelled: await this.triggers.cancelWaiting(request.workspace_id, request.request_id) };
  }

  /** A workflow `mcp_tool` step's tool call, cancellable as a child run of its workflow run. */
  @RpcHandler(AgentPatterns.callMcpTool)
  callMcpTool(request: CallMcpToolRequest): Promise<McpToolCallAnswer> {
    return this.mcpTools.call(request);
  }
}
