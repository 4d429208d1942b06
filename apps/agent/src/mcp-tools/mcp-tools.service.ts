import { Injectable, Logger } from '@nestjs/common';
import type { McpSelection } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { isCancelledByRequest } from '@waggle/runs';
import {
  McpConnectionError,
  McpConnector,
  McpToolNames,
  type McpServerConnection,
  type McpToolResult,
  type McpToolSnapshot,
} from '@waggle/mcp';
import { WorkspaceMcpServers } from '../mcp-servers/workspace-mcp-servers';
import {
  approvalProblem,
  maskedToolResult,
  mcpToolDefinitions,
  offerMcpTools,
  type ListedMcpServer,
  type McpToolSet,
} from './mcp-tool-offer';

/** The spec's decisions, MCP: a run lists each server's tools within its timeout_ms, at most 10 s. */
const MCP_LIST_CAP_MS = 10_000;

/** A server as a run or a step uses it: how to reach it, what was approved. */
type OpenedServer = McpServerConnection & { approved: McpToolSnapshot[]; enabled: boolean };

/** What a caller sent as a tool's arguments, as an MCP call takes them (an object; anything else is no arguments). */
function argumentsOf(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

/**
 * The tools of a workspace's MCP servers, for agent runs and workflow `mcp_tool` steps (the spec's
 * decisions, MCP: agents and steps). Only a tool whose live definition is the approved one is
 * offered or called; results carry no header value of their server.
 */
@Injectable()
export class WorkspaceMcpTools {
  private readonly logger = new Logger(WorkspaceMcpTools.name);

  constructor(
    private readonly servers: WorkspaceMcpServers,
    private readonly connector: McpConnector,
  ) {}

  /**
   * The tools a run of an agent with these selections offers: each enabled server listed live, in
   * parallel, within its timeout_ms (10 s at most); a server that cannot be opened or listed
   * offers nothing (a warning), and so do tools that changed since approval or were never
   * approved (a warning naming them). Undefined when nothing is offered.
   */
  async offer(workspaceId: string, selections: readonly McpSelection[], requestId: string): Promise<McpToolSet | undefined> {
    const listed = await Promise.all(selections.map((selection) => this.listed(workspaceId, selection, requestId)));
    const usable = listed.filter((entry): entry is { server: OpenedServer; listed: ListedMcpServer } => entry !== undefined);
    const { offered, withheld } = offerMcpTools(usable.map((entry) => entry.listed));
    for (const { serverId, toolName, reason } of withheld)
      this.logger.warn({ msg: 'an MCP tool is not offered', request_id: requestId, mcp_server: serverId, mcp_tool: toolName, reason });
    if (offered.length === 0) return undefined;
    const names = new McpToolNames();
    const definitions = mcpToolDefinitions(offered, names);
    const connections = new Map(usable.map(({ server }) => [server.id, server]));
    return {
      definitions,
      has: (modelName) => names.resolve(modelName) !== undefined,
      call: async (modelName, args, signal) => {
        const tool = names.resolve(modelName);
        const server = tool && connections.get(tool.serverId);
        if (!tool || !server) throw new McpConnectionError('protocol', `no MCP tool named ${modelName} is offered`);
        return this.call(server, tool.toolName, args, signal);
      },
    };
  }

  /**
   * One tool called for a workflow step: the server must be enabled, and the tool listed now with
   * the definition that was approved (else 409 `mcp_tool_not_approved`). A server that cannot be
   * reached or does not answer before `signal` aborts is 502 `mcp_tool_failed`; a tool's own error
   * is a result with `isError`. A cancel (RunCancellation) rejects with the signal's reason.
   */
  async callApproved(workspaceId: string, serverId: string, toolName: string, args: unknown, signal: AbortSignal): Promise<McpToolResult> {
    const server = await this.servers.connectionOf(workspaceId, serverId);
    if (!server.enabled)
      throw new WaggleException('resource_not_found', { status: 422, detail: 'mcp_server_disabled', params: { server: serverId } });
    try {
      const live = await this.connector.listTools(
        server,
        AbortSignal.any([signal, AbortSignal.timeout(Math.min(server.timeoutMs, MCP_LIST_CAP_MS))]),
      );
      const problem = approvalProblem(toolName, server.approved, live);
      if (problem) {
        this.logger.warn({ msg: 'an MCP tool call was refused', mcp_server: serverId, mcp_tool: toolName, reason: problem });
        const detail = problem === 'changed' ? 'mcp_tool_changed' : problem === 'gone' ? 'mcp_tool_gone' : 'mcp_tool_unapproved';
        throw new WaggleException('mcp_tool_not_approved', { detail, params: { server: serverId, tool: toolName } });
      }
      return await this.call(server, toolName, argumentsOf(args), signal);
    } catch (error) {
      // A cancel is the caller's to answer; a deadline that passed is a call that took too long.
      if (error instanceof WaggleException || isCancelledByRequest(signal)) throw error;
      throw unreachable(serverId, toolName, error);
    }
  }

  /** The server opened and its tools listed now; undefined (with a warning) when it is disabled, gone or cannot be listed. */
  private async listed(
    workspaceId: string,
    selection: McpSelection,
    requestId: string,
  ): Promise<{ server: OpenedServer; listed: ListedMcpServer } | undefined> {
    const warn = (reason: string, error?: unknown) =>
      this.logger.warn({
        msg: 'an MCP server offers no tools to this run',
        request_id: requestId,
        mcp_server: selection.server,
        reason,
        ...(error instanceof McpConnectionError && { stage: error.stage, ...(error.status !== undefined && { status: error.status }) }),
      });
    let server: OpenedServer;
    try {
      server = await this.servers.connectionOf(workspaceId, selection.server);
    } catch (error) {
      warn(error instanceof WaggleException ? error.message : 'it could not be opened');
      return undefined;
    }
    if (!server.enabled) {
      warn('it is disabled');
      return undefined;
    }
    try {
      const live = await this.connector.listTools(server, AbortSignal.timeout(Math.min(server.timeoutMs, MCP_LIST_CAP_MS)));
      return { server, listed: { selection, approved: server.approved, live } };
    } catch (error) {
      warn(error instanceof McpConnectionError ? error.message : 'its tools could not be listed in time', error);
      return undefined;
    }
  }

  private async call(server: OpenedServer, toolName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpToolResult> {
    const result = await this.connector.callTool(server, toolName, args, { signal });
    return maskedToolResult(result, Object.values(server.headers));
  }
}

/** 502 `mcp_tool_failed`: the server could not be reached, or did not answer in time or in MCP. */
function unreachable(serverId: string, toolName: string, error: unknown): WaggleException {
  const stage = error instanceof McpConnectionError ? error.stage : 'timeout';
  return new WaggleException('mcp_tool_failed', {
    detail: 'mcp_tool_unreachable',
    params: { server: serverId, tool: toolName, stage },
    details: {
      server: serverId,
      tool: toolName,
      stage,
      ...(error instanceof McpConnectionError && error.status !== undefined && { status: error.status }),
      ...(error instanceof McpConnectionError && { error: error.message }),
    },
  });
}
