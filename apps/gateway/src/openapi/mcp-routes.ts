import type { HeaderObject, OpenAPIObject, OperationObject, PathItemObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { MCP_MAX_BODY_BYTES } from '../mcp/mcp-edge';
import { MCP_AUTH_CHALLENGE, MCP_PATH } from '../mcp/mcp-errors';
import { API_KEY_SCHEME } from './run-routes';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ID: SchemaObject = { anyOf: [{ type: 'string' }, { type: 'integer' }] };

/** JSON-RPC 2.0 as the MCP server reads and answers it (the protocol's own schemas are the MCP specification's). */
const SCHEMAS: Record<string, SchemaObject> = {
  McpJsonRpcMessage: {
    type: 'object',
    description:
      'One JSON-RPC 2.0 message of the Model Context Protocol: a request (`tools/list`, `tools/call`, and on the 2025 revisions `initialize`, `ping`) or a notification',
    required: ['jsonrpc', 'method'],
    properties: {
      jsonrpc: { type: 'string', enum: ['2.0'] },
      id: ID,
      method: { type: 'string', examples: ['tools/list', 'tools/call'] },
      params: { type: 'object', additionalProperties: true },
    },
  },
  McpJsonRpcResponse: {
    type: 'object',
    description:
      'The answer to a request: `result` (a tool call’s result, whose failure is `isError: true` with the catalog’s `error_code` in its content) or `error` (an unknown tool, arguments its schema refuses)',
    required: ['jsonrpc', 'id'],
    properties: {
      jsonrpc: { type: 'string', enum: ['2.0'] },
      id: ID,
      result: { type: 'object', additionalProperties: true },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
      },
    },
  },
  McpJsonRpcError: {
    type: 'object',
    description: 'A refusal of the HTTP request before any message is handled, as a JSON-RPC error; `data` is the catalog’s error body',
    required: ['jsonrpc', 'error', 'id'],
    properties: {
      jsonrpc: { type: 'string', enum: ['2.0'] },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'integer', description: '-32700 for a body that is not JSON, -32600 for a body refused, -32000 otherwise' },
          message: { type: 'string' },
          data: ref('ErrorBodyDto'),
        },
      },
      id: { anyOf: [ID, { type: 'null' }] },
    },
  },
};

const HEADERS: Record<string, HeaderObject> = {
  McpRequestId: {
    description: 'On every answer: the request id, which names the run of a `tools/call` (GET /v1/public/requests/{id} finds it)',
    schema: { type: 'string', pattern: '^req_[0-9a-f]{32}$' },
  },
};

const requestIdHeader = { 'x-request-id': { $ref: '#/components/headers/McpRequestId' } };

function refusal(description: string, headers: Record<string, HeaderObject | { $ref: string }> = {}): ResponseObject {
  return { description, headers: { ...requestIdHeader, ...headers }, content: { 'application/json': { schema: ref('McpJsonRpcError') } } };
}

const METHOD_NOT_ALLOWED = refusal(
  'Each message is its own POST, served statelessly: there is no stream to open and no session to end (decisions, MCP)',
  { Allow: { description: 'The one method served', schema: { type: 'string', enum: ['POST'] } } },
);

function notServed(operationId: string): OperationObject {
  return { operationId, tags: ['mcp'], summary: 'Not served: 405', responses: { '405': METHOD_NOT_ALLOWED } };
}

/** The MCP server's path (its controller is kept out of Swagger's scan). */
export const MCP_PATHS: Record<string, PathItemObject> = {
  [MCP_PATH]: {
    post: {
      operationId: 'mcpMessage',
      tags: ['mcp'],
      summary:
        'The workspace as an MCP server (Streamable HTTP): its published prompts, workflows and agents, and knowledge base search, as tools',
      description:
        'Revision 2026-07-28, and 2025-06-18 and 2025-11-25 clients served statelessly. Tools are the artifacts published with `publish: {mcp: true}` (prompt and workflow variants in an apply file, agents) and `knowledge_search` when the workspace has a knowledge base. Each `tools/call` is a run in the ledger (`surface: mcp`), counted on the daily API meter; a progress token gets one notification per workflow step or agent turn; a closed stream or `notifications/cancelled` cancels the run.',
      security: [{ [API_KEY_SCHEME]: [] }],
      parameters: [
        {
          name: 'MCP-Protocol-Version',
          in: 'header',
          required: false,
          description: 'The revision the client speaks after its handshake (its requests’ envelope says it on 2026-07-28)',
          schema: { type: 'string', examples: ['2026-07-28', '2025-11-25', '2025-06-18'] },
        },
        {
          name: 'Origin',
          in: 'header',
          required: false,
          description: 'When sent (a browser), one of MCP_ALLOWED_ORIGINS, else 403',
          schema: { type: 'string' },
        },
      ],
      requestBody: {
        required: true,
        description: `At most ${MCP_MAX_BODY_BYTES / 1024 / 1024} MiB`,
        content: { 'application/json': { schema: ref('McpJsonRpcMessage') } },
      },
      responses: {
        '200': {
          description: 'The answer: one JSON-RPC response, or an event stream of progress notifications before it',
          headers: requestIdHeader,
          content: {
            'application/json': { schema: ref('McpJsonRpcResponse') },
            'text/event-stream': { schema: { type: 'string', description: '`event: message` events, each `data:` one JSON-RPC message' } },
          },
        },
        '202': { description: 'A notification, accepted', headers: requestIdHeader },
        '400': refusal('A body that is not JSON, nested too deep, or not a JSON-RPC message'),
        '401': refusal('Missing, invalid or revoked API key: no OAuth metadata is published', {
          'WWW-Authenticate': { description: 'The challenge', schema: { type: 'string', enum: [MCP_AUTH_CHALLENGE] } },
        }),
        '403': refusal('An Origin that MCP_ALLOWED_ORIGINS does not list'),
        '406': refusal('An Accept header that takes neither JSON nor an event stream'),
        '413': refusal('A body over 1 MiB'),
        '415': refusal('A body in a Content-Encoding or Content-Type that is not read'),
        '422': refusal('A body holding NUL characters'),
        '503': refusal('Overloaded or a dependency unavailable: retry after `retry-after`'),
      },
    },
    get: notServed('mcpStream'),
    delete: notServed('mcpEndSession'),
  },
};

/** Adds the MCP server (the spec's decisions, MCP): its path, its JSON-RPC shapes and its request id header. */
export function addMcpRoutes(document: OpenAPIObject): void {
  Object.assign(document.paths, MCP_PATHS);
  const components = (document.components ??= {});
  components.schemas = { ...components.schemas, ...SCHEMAS };
  components.headers = { ...components.headers, ...HEADERS };
}
