import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { toNodeHandler, type NodeIncomingMessageLike, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type AuthInfo,
  type McpHttpHandler,
  type Tool,
} from '@modelcontextprotocol/server';
import { resolveLocale, WaggleException } from '@waggle/errors';
import { newRequestId, requestContext } from '@waggle/platform';
import { waggleVersion } from '@waggle/telemetry';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { McpToolCatalog, type ServedTool } from './mcp-tool-catalog';
import type { McpCaller } from './mcp-caller';
import { McpToolCalls } from './mcp-tool-calls';

/** What the Streamable HTTP transport asks a client to accept. */
const ANY_ANSWER = 'application/json, text/event-stream';

/** Where the authenticated caller travels to the server the factory builds for its request. */
const CALLER = 'waggle.caller';

/** A served tool as tools/list shows it. */
function listedTool(tool: ServedTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input_schema,
    ...(tool.output_schema && { outputSchema: tool.output_schema }),
  };
}

/** The caller the edge authenticated, as the SDK's pass-through `authInfo`: the key's id stands for the key, which never leaves the edge. */
function authInfoOf(caller: McpCaller): AuthInfo {
  return { token: caller.auth.key_id, clientId: caller.auth.key_id, scopes: [], extra: { [CALLER]: caller } };
}

function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = authInfo?.extra?.[CALLER] as McpCaller | undefined;
  // The controller authenticates every request before it reaches the handler.
  if (!caller) throw new ProtocolError(ProtocolErrorCode.InternalError, 'The request was not authenticated');
  return caller;
}

/**
 * The workspace as an MCP server (the spec's decisions, MCP, "Waggle as a server"), on the
 * official SDK: `createMcpHandler` serves the 2026-07-28 revision and, statelessly, 2025-06-18
 * and 2025-11-25 clients from one factory, which builds a low-level `Server` per HTTP request
 * for the workspace of the key the edge authenticated (its `authInfo`), with the `tools`
 * capability: tools/list gathers the workspace's published tools, tools/call runs one.
 */
@Injectable()
export class McpServerHandler implements OnApplicationShutdown {
  private readonly logger = new Logger(McpServerHandler.name);
  private readonly handler: McpHttpHandler;
  private readonly node: NodeMcpRequestHandler;
  private readonly version = waggleVersion();

  constructor(
    private readonly catalog: McpToolCatalog,
    private readonly calls: McpToolCalls,
  ) {
    // The handler reports every request it refuses (a media type, an Accept, a body that is no
    // JSON-RPC): a client's mistake, answered as a 4xx and in the access log, so only for debugging.
    this.handler = createMcpHandler(({ authInfo, era }) => this.serverFor(callerOf(authInfo), era), {
      onerror: (error) => this.logger.debug({ err: error }, 'the MCP handler refused a request'),
    });
    // The adapter's own failure is a 500: never expected.
    this.node = toNodeHandler(this.handler, {
      onerror: (error) => this.logger.error({ err: error }, 'the MCP handler could not serve a request'),
    });
  }

  /**
   * Serves one authenticated request (its body parsed by the edge), writing the SDK's answer. A
   * request that accepts any media type (no `Accept`, or one listing the wildcard) accepts both the
   * JSON and the event-stream answers the transport asks a client to accept.
   */
  serve(request: AuthenticatedRequest, response: Response): Promise<void> {
    const caller: McpCaller = { auth: request.auth, locale: resolveLocale(request.locale) };
    // The key was read at the edge: the SDK is handed the caller, never the key itself.
    const { authorization: _key, ...headers } = request.headers;
    const accept = headers.accept;
    const incoming: NodeIncomingMessageLike = {
      method: request.method,
      url: request.url,
      headers: accept === undefined || /(^|,)\s*\*\/\*/.test(accept) ? { ...headers, accept: ANY_ANSWER } : headers,
      auth: authInfoOf(caller),
      [Symbol.asyncIterator]: () => request[Symbol.asyncIterator](),
    };
    return this.node(incoming, response, request.body);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.handler.close();
  }

  /** One HTTP request's server: the caller's tools, in the era the request speaks. */
  private serverFor(caller: McpCaller, era: 'legacy' | 'modern'): Server {
    const server = new Server({ name: 'waggle', version: this.version }, { capabilities: { tools: {} } });
    // The HTTP request's id names the run of its tools/call, as a native route's does; a second call
    // in one request (a 2025 batch) gets an id of its own.
    let requestIdTaken = false;
    const nextRequestId = () => {
      const id = requestIdTaken ? undefined : requestContext.get()?.requestId;
      requestIdTaken = true;
      return id ?? newRequestId();
    };
    server.setRequestHandler('tools/list', async () => {
      try {
        return { tools: (await this.catalog.list(caller.auth.workspace_id)).map(listedTool) };
      } catch (error) {
        const failure = error instanceof WaggleException ? error : new WaggleException('internal_server_error');
        if (!(error instanceof WaggleException)) this.logger.error({ err: error }, 'the MCP tool list could not be gathered');
        throw new ProtocolError(ProtocolErrorCode.InternalError, failure.messageIn(caller.locale), { error_code: failure.code });
      }
    });
    const legacy = era === 'legacy';
    server.setRequestHandler('tools/call', (request, context) => this.calls.call(caller, request.params, context, nextRequestId(), legacy));
    // A 2025 client's cancel comes in a request of its own, which no call of this instance is in:
    // it names the call by its JSON-RPC id (a 2026 client closes the call's stream instead).
    if (legacy)
      server.setNotificationHandler('notifications/cancelled', (notification) => {
        const id = notification.params.requestId;
        return id === undefined ? undefined : this.calls.cancelByNotice(caller, id);
      });
    return server;
  }
}
