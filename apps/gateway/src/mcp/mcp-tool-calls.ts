import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CallToolResult, ProgressToken, ServerContext } from '@modelcontextprotocol/server';
import { fromJsonSchema, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import {
  AgentPatterns,
  InvocationPatterns,
  KnowledgeBasePatterns,
  send,
  WORKFLOW_RUN_PROGRESS_SUBJECT,
  type AgentRunRequest,
  type AgentStreamEvent,
  type WorkflowStepProgress,
} from '@waggle/contracts';
import { isErrorCode, WaggleException, type StreamErrorEvent } from '@waggle/errors';
import { APP_ENV, newErrorId, NatsRpcClient } from '@waggle/platform';
import { runCancelledError } from '@waggle/runs';
import { randomUUID } from 'node:crypto';
import type { GatewayEnv } from '../config/gateway.env';
import { ApiMeter } from '../meter/api-meter';
import { workflowRunLimits } from '../workflows/workflow-run-limits';
import { type McpCaller } from './mcp-caller';
import { McpCallsInFlight, type JsonRpcId } from './mcp-calls-in-flight';
import { toolFailureOf } from './mcp-errors';
import { McpToolCatalog, type ServedTool } from './mcp-tool-catalog';

/** What tools/call asks. */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
}

/** Where a result names its run: its request id, which `GET /v1/public/requests/{id}` finds. */
export const REQUEST_ID_META = 'waggle/request_id';

type ToolArguments = Record<string, unknown>;

/** A tool's arguments checked against the JSON Schema its tools/list entry shows: the invalid-params error names what is wrong. */
async function checkedArguments(tool: ServedTool, given: ToolArguments | undefined): Promise<ToolArguments> {
  const args = given ?? {};
  const checked = await fromJsonSchema<ToolArguments>(tool.input_schema)['~standard'].validate(args);
  if (checked.issues) {
    const problems = checked.issues.map((issue) => issue.message).join('; ');
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for tool ${tool.name}: ${problems}`);
  }
  return args;
}

/** An answer as the tool's result: its text, and with an output schema the parsed value as structured content. */
function answerOf(tool: ServedTool, text: string, requestId: string): CallToolResult {
  const _meta = { [REQUEST_ID_META]: requestId };
  if (!tool.output_schema) return { content: [{ type: 'text', text }], _meta };
  let structured: unknown;
  try {
    structured = JSON.parse(text);
  } catch {
    structured = undefined;
  }
  if (structured === null || typeof structured !== 'object' || Array.isArray(structured))
    throw new WaggleException('internal_server_error', { detail: 'mcp_answer_not_structured' });
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown>, _meta };
}

/** A structured answer: its JSON as text too, for clients that read only text. */
function structuredAnswer(value: Record<string, unknown>, requestId: string): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, _meta: { [REQUEST_ID_META]: requestId } };
}

/** A deployment variant's run as an MCP tool call asks for it: the tool's arguments are its inputs. */
function variantRun(target: { deployment: string; variant: string }, args: ToolArguments, caller: McpCaller, requestId: string) {
  return {
    workspace_id: caller.auth.workspace_id,
    request_id: requestId,
    surface: 'mcp' as const,
    deployment: target.deployment,
    variant: target.variant,
    inputs: args,
  };
}

/** A stream's error event as the exception it carries. */
function failureOfEvent(event: StreamErrorEvent): WaggleException {
  return (
    (event.failure && WaggleException.fromWire(event.failure)) ??
    new WaggleException(isErrorCode(event.error_code) ? event.error_code : 'internal_server_error')
  );
}

/** Progress notifications of one tool call, each sent as it comes; all of them out before the result. */
class ProgressNotices {
  private sent = 0;
  private readonly pending: Array<Promise<void>> = [];

  constructor(
    private readonly token: ProgressToken,
    private readonly context: ServerContext,
  ) {}

  /** `progress` increases on every notice (the protocol's rule): a count of what is done. */
  notify(progress: number, message: string): void {
    if (progress <= this.sent) return;
    this.sent = progress;
    this.pending.push(
      this.context.mcpReq
        .notify({ method: 'notifications/progress', params: { progressToken: this.token, progress, message } })
        .catch(() => undefined),
    );
  }

  next(message: string): void {
    this.notify(this.sent + 1, message);
  }

  flushed(): Promise<unknown> {
    return Promise.all(this.pending);
  }
}

/**
 * Runs a tool call (the spec's decisions, MCP, "exposed tools") through the same patterns as the
 * native routes, with `surface: 'mcp'`: a prompt variant's invoke, a workflow's sync invoke, an
 * agent's turn, a knowledge base search. Each is a run like any other: counted on the daily meter,
 * capped, in the ledger under its request id (made as the native routes make it), traced under
 * the gateway's span. A failure is the tool's `isError` result with the catalog's code; only an
 * unknown tool or arguments its schema refuses are JSON-RPC errors. A cancelled call (the
 * client's `notifications/cancelled`, or its stream closed) cancels its run as the native cancel
 * route does, so the run ends `cancelled`.
 */
@Injectable()
export class McpToolCalls {
  private readonly logger = new Logger(McpToolCalls.name);

  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly meter: ApiMeter,
    private readonly catalog: McpToolCatalog,
    private readonly inFlight: McpCallsInFlight,
    @Inject(APP_ENV) private readonly env: GatewayEnv,
  ) {}

  /**
   * One tool call. A 2025-era client's (`noted`) is noted in flight for its run, so the
   * `notifications/cancelled` it POSTs on its own finds the run (cancelByNotice); a 2026 client
   * cancels by closing the call's stream, which aborts the call's signal here.
   */
  async call(caller: McpCaller, params: ToolCallParams, context: ServerContext, requestId: string, noted = false): Promise<CallToolResult> {
    if (!noted) return this.runCall(caller, params, context, requestId);
    const id = context.mcpReq.id;
    await this.inFlight.started(caller, id, requestId);
    try {
      return await this.runCall(caller, params, context, requestId);
    } finally {
      void this.inFlight.ended(caller, id, requestId);
    }
  }

  /** A 2025-era client's `notifications/cancelled`: the run of its call with that id, if one is in flight, is cancelled. */
  async cancelByNotice(caller: McpCaller, id: JsonRpcId): Promise<void> {
    const requestId = await this.inFlight.runOf(caller, id);
    if (requestId !== undefined) this.cancel(caller, requestId);
  }

  private async runCall(caller: McpCaller, params: ToolCallParams, context: ServerContext, requestId: string): Promise<CallToolResult> {
    let tools: ServedTool[];
    let tool: ServedTool | undefined;
    let args: ToolArguments;
    try {
      // Admitted like a native invoke (a run): every call, before anything else is looked at.
      await this.meter.admit(caller.auth, { runStarting: true, requestId, body: params.arguments ?? {} });
    } catch (error) {
      return this.failed(error, caller, requestId);
    }
    try {
      tools = await this.catalog.list(caller.auth.workspace_id);
      tool = tools.find((candidate) => candidate.name === params.name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${params.name.slice(0, 200)}`);
      args = await checkedArguments(tool, params.arguments);
    } catch (error) {
      // No run begins: what the admission reserved is given back.
      this.meter.release(caller.auth.workspace_id, requestId);
      if (error instanceof ProtocolError) throw error;
      return this.failed(error, caller, requestId);
    }
    const signal = context.mcpReq.signal;
    // A client gone before its run began: none begins.
    if (signal.aborted) {
      this.meter.release(caller.auth.workspace_id, requestId);
      return this.failed(runCancelledError(requestId), caller, requestId);
    }
    const cancel = () => this.cancel(caller, requestId);
    signal.addEventListener('abort', cancel, { once: true });
    try {
      return await this.run(tool, args, caller, context, requestId);
    } catch (error) {
      return this.failed(error, caller, requestId);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  private run(
    tool: ServedTool,
    args: ToolArguments,
    caller: McpCaller,
    context: ServerContext,
    requestId: string,
  ): Promise<CallToolResult> {
    const progressToken = context.mcpReq._meta?.progressToken;
    const progress = progressToken === undefined ? undefined : new ProgressNotices(progressToken, context);
    const target = tool.target;
    switch (target.kind) {
      case 'prompt':
        return this.runPrompt(tool, target, args, caller, requestId);
      case 'workflow':
        return this.runWorkflow(tool, target, args, caller, requestId, progress);
      case 'agent':
        return this.runAgent(target.agent_id, args, caller, requestId, progress);
      case 'knowledge_base':
        return this.search(tool, args, caller, requestId);
    }
  }

  private async runPrompt(
    tool: ServedTool,
    target: { deployment: string; variant: string },
    args: ToolArguments,
    caller: McpCaller,
    requestId: string,
  ): Promise<CallToolResult> {
    const answer = await send(this.rpc, InvocationPatterns.invokePrompt, variantRun(target, args, caller, requestId), {
      timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS,
    });
    return answerOf(tool, answer.response, requestId);
  }

  /**
   * A sync run; with a progress token, each finished step is a notice (progress = steps done,
   * message = the step's key), told by the replica executing the run on a subject of this run's.
   */
  private async runWorkflow(
    tool: ServedTool,
    target: { deployment: string; variant: string },
    args: ToolArguments,
    caller: McpCaller,
    requestId: string,
    progress: ProgressNotices | undefined,
  ): Promise<CallToolResult> {
    const subject = `${WORKFLOW_RUN_PROGRESS_SUBJECT}.${requestId}`;
    const steps = progress
      ? this.rpc.subscribe<WorkflowStepProgress>(subject, (step) => {
          if (typeof step?.steps_done === 'number' && typeof step.step_key === 'string') progress.notify(step.steps_done, step.step_key);
        })
      : undefined;
    try {
      const answer = await send(
        this.rpc,
        InvocationPatterns.invokeWorkflow,
        {
          ...variantRun(target, args, caller, requestId),
          limits: workflowRunLimits(caller.auth),
          ...(steps && { progress_subject: subject }),
        },
        { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS },
      );
      await progress?.flushed();
      // A sync invoke answers a completed run, or throws its failure.
      return answerOf(tool, answer.run_status === 'completed' ? answer.output : '', requestId);
    } finally {
      steps?.unsubscribe();
    }
  }

  /**
   * One turn of the agent on a thread: the caller's, else a new one the answer names, so the next
   * call continues the conversation. With a progress token the turn is streamed and each tool call
   * and each answered model turn is a notice.
   */
  private async runAgent(
    agentId: string,
    args: ToolArguments,
    caller: McpCaller,
    requestId: string,
    progress: ProgressNotices | undefined,
  ): Promise<CallToolResult> {
    const threadId = typeof args.thread_id === 'string' ? args.thread_id : `mcp_${randomUUID()}`;
    const run: AgentRunRequest = {
      workspace_id: caller.auth.workspace_id,
      request_id: requestId,
      surface: 'mcp',
      agent: agentId,
      message: args.message as string,
      thread_id: threadId,
    };
    const timeout = { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS };
    if (!progress) {
      const answer = await send(this.rpc, AgentPatterns.invokeAgent, run, timeout);
      return structuredAnswer({ answer: answer.response, thread_id: answer.thread_id ?? threadId }, requestId);
    }
    const fragments: string[] = [];
    await new Promise<void>((resolve, reject) => {
      send(this.rpc, AgentPatterns.streamAgent, run, timeout).subscribe({
        next: (event: AgentStreamEvent) => {
          if (event.type === 'response' && !event.done) fragments.push(event.response);
          else if (event.type === 'response') progress.next('model turn');
          else if (event.type === 'tool') progress.next(`tool call ${event.tool}`);
          else if (event.type === 'error') reject(failureOfEvent(event));
        },
        error: reject,
        complete: resolve,
      });
    });
    await progress.flushed();
    return structuredAnswer({ answer: fragments.join(''), thread_id: threadId }, requestId);
  }

  /** The one knowledge_search tool: a search of one of the workspace's knowledge bases, recorded in the ledger as a run of its own. */
  private async search(tool: ServedTool, args: ToolArguments, caller: McpCaller, requestId: string): Promise<CallToolResult> {
    const answer = await send(this.rpc, KnowledgeBasePatterns.search, {
      workspace_id: caller.auth.workspace_id,
      knowledge_base_id: args.knowledge_base as string,
      search_query: args.query as string,
      ...(typeof args.top_k === 'number' && { search_chunk_limit: args.top_k }),
      request_id: requestId,
      surface: 'mcp',
    });
    return structuredAnswer(
      {
        search_type: answer.search_type,
        chunks: answer.chunks.map(({ knowledge_base_item_id, item_name, content, score, position }) => ({
          knowledge_base_item_id,
          item_name,
          content,
          score,
          position,
        })),
      },
      requestId,
    );
  }

  /** The client gave up on the call: its run is cancelled as `POST /v1/public/requests/{id}/cancel` does it. */
  private cancel(caller: McpCaller, requestId: string): void {
    send(this.rpc, InvocationPatterns.cancelRequest, { workspace_id: caller.auth.workspace_id, request_id: requestId }).then(
      (cancelled) => this.logger.log({ request_id: requestId, run_status: cancelled.run_status }, 'an MCP client cancelled its tool call'),
      (error: unknown) =>
        this.logger.warn({ err: error, request_id: requestId }, 'the run of a cancelled MCP tool call could not be cancelled'),
    );
  }

  /** A failure as the tool's result: the catalog's code and message in the workspace's language, and the run's request id. */
  private failed(error: unknown, caller: McpCaller, requestId: string): CallToolResult {
    let failure = error instanceof WaggleException ? error : undefined;
    if (!failure) {
      if (error instanceof ProtocolError) throw error;
      const errorId = newErrorId();
      this.logger.error({ err: error, error_id: errorId, request_id: requestId }, 'an MCP tool call failed unexpectedly');
      failure = new WaggleException('internal_server_error', { details: { error_id: errorId } });
    }
    const shaped = toolFailureOf(failure, caller.locale, requestId);
    return { content: [{ type: 'text', text: JSON.stringify(shaped) }], isError: true, _meta: { [REQUEST_ID_META]: requestId } };
  }
}
