import { localizeDetails, toErrorBody, WaggleException, type ErrorBody, type SupportedLocale } from '@waggle/errors';

/** The MCP server's one path (the spec's decisions, MCP: "Waggle as a server"). */
export const MCP_PATH = '/v1/mcp';

/** What a 401 of the MCP server says (decisions: no `resource_metadata`, no OAuth hint: the key is a workspace API key). */
export const MCP_AUTH_CHALLENGE = 'Bearer realm="waggle"';

/** JSON-RPC 2.0's codes for an answer the MCP server gives before any message is handled. */
const PARSE_ERROR = -32_700;
const INVALID_REQUEST = -32_600;
/** Implementation-defined: authentication, origin, method, overload. */
const SERVER_ERROR = -32_000;

/**
 * A request to the MCP server, by its path (before routing: every refusal of it, routed or not,
 * answers as JSON-RPC). Without regard to case, as Express routes, with or without a trailing slash.
 */
export function isMcpRequest(request: { url?: string; originalUrl?: string }): boolean {
  const url = request.originalUrl ?? request.url ?? '';
  const query = url.indexOf('?');
  const path = (query < 0 ? url : url.slice(0, query)).toLowerCase();
  return path === MCP_PATH || path === `${MCP_PATH}/`;
}

/** A JSON-RPC error response whose `data` is the catalog's error body. */
export interface McpErrorBody {
  jsonrpc: '2.0';
  error: { code: number; message: string; data: ErrorBody | { error: string } };
  id: string | number | null;
}

/** The JSON-RPC id a refusal answers: the body's, when it is one request whose id could be read (JSON-RPC: null otherwise). */
export function answeredId(body: unknown): string | number | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : null;
}

function jsonRpcCodeOf(exception: WaggleException): number {
  if (exception.detail === 'request_body_not_json') return PARSE_ERROR;
  if (exception.status === 400 || exception.status === 413 || exception.status === 415 || exception.status === 422) return INVALID_REQUEST;
  return SERVER_ERROR;
}

/**
 * A refusal of an MCP request (authentication, origin, method, body, overload) as MCP clients
 * read one: the HTTP status, and a JSON-RPC error whose message is the catalog's (in the
 * workspace's language once the key told it) and whose `data` is the catalog's error body. A
 * 401 carries the Bearer challenge; a 405 names the one method served.
 */
export function toMcpError(
  exception: WaggleException,
  locale: SupportedLocale,
  id: string | number | null = null,
): { status: number; body: McpErrorBody; headers: Record<string, string> } {
  const data = toErrorBody(exception, locale);
  const message = 'message' in data ? data.message : data.error;
  const headers: Record<string, string> = {};
  if (exception.status === 401) headers['www-authenticate'] = MCP_AUTH_CHALLENGE;
  if (exception.status === 405) headers.allow = 'POST';
  return { status: exception.status, headers, body: { jsonrpc: '2.0', error: { code: jsonRpcCodeOf(exception), message, data }, id } };
}

/** A refusal answered before any route runs, as a JSON-RPC error in JSON text; English, since no workspace tells the language yet. */
export function mcpErrorText(exception: WaggleException): string {
  return JSON.stringify(toMcpError(exception, 'en').body);
}

/**
 * A tool call's failure as the tool's result (decisions: failures are `isError` results carrying
 * the catalog's `error_code`, never a JSON-RPC error): its code, message and the run's request id,
 * and the details of a refusal that names fields.
 */
export function toolFailureOf(
  exception: WaggleException,
  locale: SupportedLocale,
  requestId: string,
): { error_code: string; message: string; request_id: string; details?: unknown } {
  return {
    error_code: exception.code,
    message: exception.messageIn(locale),
    request_id: requestId,
    ...(exception.details !== undefined && { details: localizeDetails(exception.details, locale) }),
  };
}
