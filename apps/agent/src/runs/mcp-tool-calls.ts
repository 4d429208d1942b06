import { Injectable } from '@nestjs/common';
import type { CallMcpToolRequest, McpToolCallAnswer } from '@waggle/contracts';
import { msUntilDeadline } from '@waggle/platform';
import { RunCancellation, runCancelledError } from '@waggle/runs';
import { WorkspaceMcpTools } from '../mcp-tools/mcp-tools.service';

/**
 * A workflow `mcp_tool` step's call, tracked under the step's child request id like an agent
 * step's run: a cancel of the workflow run (cancelElsewhere) cancels the call at the server. It
 * answers before its caller's deadline passes (a call still running then fails as
 * `mcp_tool_failed`, stage `timeout`).
 */
@Injectable()
export class McpToolCalls {
  constructor(
    private readonly tools: WorkspaceMcpTools,
    private readonly cancellation: RunCancellation,
  ) {}

  call(request: CallMcpToolRequest): Promise<McpToolCallAnswer> {
    const left = msUntilDeadline();
    return this.cancellation.tracking(request.request_id, async (tracked) => {
      const signal = left === undefined ? tracked.signal : AbortSignal.any([tracked.signal, AbortSignal.timeout(left)]);
      try {
        const result = await this.tools.callApproved(request.workspace_id, request.server, request.tool, request.arguments, signal);
        return {
          ...(result.structuredContent && { structured_content: result.structuredContent }),
          text: result.text,
          is_error: result.isError,
          truncated: result.truncated,
        };
      } catch (error) {
        if (tracked.cancelled) throw runCancelledError(request.request_id);
        throw error;
      }
    });
  }
}
