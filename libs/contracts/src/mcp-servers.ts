import 'reflect-metadata';
import { errorMessage, type ErrorDetail } from '@waggle/errors';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { WorkspaceIdRequest } from './common.dto';

// Workspace MCP servers (the spec's decisions, MCP: "workspace MCP servers", "connection test",
// "URL policy"): the wire shapes of the agent service's registry.

/**
 * Where reaching an MCP server failed (the spec's decisions, MCP, "connection test"), in the
 * order a connection gets there: the URL policy, DNS, the connection (the address's policy and
 * whether anything listens there, then TLS), the HTTP answer, the MCP protocol; `timeout` when
 * the time allowed ran out first. `details.stage` of a 422 mcp_connection_failed.
 */
export const MCP_FAILURE_STAGES = [
  'url_invalid',
  'address_refused',
  'dns',
  'tls',
  'http_status',
  'unauthorized',
  'protocol',
  'timeout',
] as const;
export type McpFailureStage = (typeof MCP_FAILURE_STAGES)[number];

/** A server's id: fixed once created, unique in its workspace. */
export const MCP_SERVER_ID_FORMAT = /^[a-z0-9_-]{1,24}$/;
/** Servers one workspace may register. */
export const MAX_MCP_SERVERS_PER_WORKSPACE = 20;
/** A call's time-out: default, least and most (ms). */
export const MCP_SERVER_TIMEOUT_MS = { default: 60_000, min: 1_000, max: 300_000 } as const;
/** Headers one server may be given, and the longest value (bytes of UTF-8). */
export const MAX_MCP_HEADERS = 20;
export const MAX_MCP_HEADER_VALUE_BYTES = 8 * 1024;
/** How a stored header value reads back; sent back in an update or test, it keeps the stored value. */
export const MCP_MASKED_HEADER_VALUE = '********';
/** A URL's longest form (as the callback policy's). */
const MAX_MCP_URL_LENGTH = 2048;

/** RFC 9110 `token`: what a header name may be. */
const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Hop-by-hop headers (RFC 9110 7.6.1) and what the connection itself sets. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Why a header name may not be configured (a message id), or null. */
function headerNameProblem(name: string): ErrorDetail | null {
  if (!HEADER_TOKEN.test(name)) return { detail: 'mcp_header_reason_not_a_name' };
  const lower = name.toLowerCase();
  if (lower === 'host') return { detail: 'mcp_header_reason_host' };
  if (lower.startsWith('mcp-')) return { detail: 'mcp_header_reason_mcp' };
  if (lower === 'content-length') return { detail: 'mcp_header_reason_content_length' };
  if (lower.startsWith('proxy-') || CONNECTION_HEADERS.has(lower)) return { detail: 'mcp_header_reason_hop_by_hop' };
  return null;
}

/** Why a header value may not be configured (a message id), or null. */
function headerValueProblem(value: string): ErrorDetail | null {
  if (Buffer.byteLength(value, 'utf8') > MAX_MCP_HEADER_VALUE_BYTES) {
    return { detail: 'mcp_header_reason_value_too_long', params: { max: MAX_MCP_HEADER_VALUE_BYTES } };
  }
  for (const char of value) {
    const code = char.charCodeAt(0);
    // Visible characters, spaces and tabs: no line breaks or other control characters.
    if ((code < 0x20 && char !== '\t') || code === 0x7f) return { detail: 'mcp_header_reason_control_character' };
    if (code > 0xff) return { detail: 'mcp_header_reason_not_latin1' };
  }
  return null;
}

/**
 * Why a configured header name is refused for an MCP server, in English, or null when it may be
 * sent (the spec's decisions, MCP, "URL policy"): `Host`, every `Mcp-*` header (the transport's
 * own), hop-by-hop headers (`Connection`, `Keep-Alive`, `Proxy-*`, `TE`, `Trailer`,
 * `Transfer-Encoding`, `Upgrade`), `Content-Length`, and anything that is not a valid header name.
 */
export function mcpHeaderRefusal(name: string): string | null {
  const problem = headerNameProblem(name);
  return problem === null ? null : errorMessage(problem, 'en');
}

/** Why a configured header value is refused (control characters, not Latin-1, over 8 KiB), in English, or null. */
export function mcpHeaderValueRefusal(value: string): string | null {
  const problem = headerValueProblem(value);
  return problem === null ? null : errorMessage(problem, 'en');
}

/** Why a `headers` object is not acceptable (a message id, rendered in the reader's language), or undefined. */
export function mcpHeadersProblem(value: unknown): ErrorDetail | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { detail: 'mcp_headers_not_object' };
  const entries = Object.entries(value);
  if (entries.length > MAX_MCP_HEADERS) return { detail: 'mcp_headers_too_many', params: { max: MAX_MCP_HEADERS } };
  const seen = new Set<string>();
  for (const [name, item] of entries) {
    const nameProblem = headerNameProblem(name);
    if (nameProblem) return { detail: 'mcp_header_name_refused', params: { name: name.slice(0, 100), reason: nameProblem } };
    if (seen.has(name.toLowerCase())) return { detail: 'mcp_header_name_repeated', params: { name } };
    seen.add(name.toLowerCase());
    if (typeof item !== 'string') return { detail: 'mcp_header_value_not_string', params: { name } };
    const valueProblem = headerValueProblem(item);
    if (valueProblem) return { detail: 'mcp_header_value_refused', params: { name, reason: valueProblem } };
  }
  return undefined;
}

/** An MCP server's headers: names a server may be sent (mcpHeaderRefusal), string values (mcpHeaderValueRefusal), at most 20. */
export function IsMcpHeaders(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isMcpHeaders',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => mcpHeadersProblem(value) === undefined,
        defaultMessage: (args) => errorMessage(mcpHeadersProblem(args?.value) ?? { detail: 'mcp_headers_not_object' }, 'en'),
      },
    });
}

/** Absent keeps the stored value; null is refused (nothing here can be unset). */
const unlessAbsent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** The settings of a server every write may carry apart from its id, name and URL. */
class McpServerSettings {
  /** Sent with every request to the server, values sealed at rest and never read back. */
  @unlessAbsent()
  @IsMcpHeaders()
  headers?: Record<string, string>;

  @unlessAbsent()
  @IsInt()
  @Min(MCP_SERVER_TIMEOUT_MS.min)
  @Max(MCP_SERVER_TIMEOUT_MS.max)
  timeout_ms?: number;

  /** A disabled server is kept but never connected to (default true). */
  @unlessAbsent()
  @IsBoolean()
  enabled?: boolean;
}

/** A server as a create, an apply file or an unsaved test gives it. */
export class McpServerDefinition extends McpServerSettings {
  @IsString()
  @Matches(MCP_SERVER_ID_FORMAT)
  id!: string;

  @IsString()
  @Length(1, 200)
  name!: string;

  /** https, or http for a host MCP_URL_ALLOWLIST lists; checked against the URL policy by the agent service. */
  @IsString()
  @Length(1, MAX_MCP_URL_LENGTH)
  url!: string;
}

/** What an update may change: every field optional; `id`, when sent, must be the server's own (it is fixed). */
export class McpServerChanges extends McpServerSettings {
  @unlessAbsent()
  @IsString()
  @Matches(MCP_SERVER_ID_FORMAT)
  id?: string;

  @unlessAbsent()
  @IsString()
  @Length(1, 200)
  name?: string;

  @unlessAbsent()
  @IsString()
  @Length(1, MAX_MCP_URL_LENGTH)
  url?: string;
}

/** One server of a workspace. Any string names it; one that names none answers 404. */
export class McpServerIdRequest extends WorkspaceIdRequest {
  @IsString()
  @MaxLength(100)
  server_id!: string;
}

export class CreateMcpServerRequest extends WorkspaceIdRequest {
  @ValidateNested()
  @Type(() => McpServerDefinition)
  mcp_server!: McpServerDefinition;
}

export class UpdateMcpServerRequest extends McpServerIdRequest {
  @ValidateNested()
  @Type(() => McpServerChanges)
  mcp_server!: McpServerChanges;
}

/** An apply file's `mcp_servers:` list: each created, updated or left as it is. */
export class ApplyMcpServersRequest extends WorkspaceIdRequest {
  @IsArray()
  @ArrayMaxSize(MAX_MCP_SERVERS_PER_WORKSPACE)
  @ValidateNested({ each: true })
  @Type(() => McpServerDefinition)
  mcp_servers!: McpServerDefinition[];
}

/** One tool as a server lists it, in the API's field names. */
export interface McpToolView {
  name: string;
  title?: string;
  description?: string;
  input_schema: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
}

/** A workspace MCP server as the API answers it: headers masked, the approved tool snapshot. */
export interface McpServerView {
  id: string;
  name: string;
  url: string;
  /** Every stored header name, each with MCP_MASKED_HEADER_VALUE. */
  headers: Record<string, string>;
  timeout_ms: number;
  enabled: boolean;
  /** The approved snapshot: the tools agents and workflows may call. Empty until one is approved. */
  tools: McpToolView[];
  /** The approved snapshot's hash; null until one is approved. */
  tools_hash: string | null;
  tools_approved_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A successful connection test. */
export interface McpServerTestResult {
  ok: true;
  protocol_version: string;
  tools: McpToolView[];
  /** Tools whose definition differs from the approved snapshot, or that it lacks. */
  changed: string[];
  /** Approved tools the server no longer lists. */
  removed: string[];
}

export interface DeletedMcpServer {
  id: string;
}

export const MCP_SERVER_APPLY_ACTIONS = ['created', 'updated', 'unchanged'] as const;
export type McpServerApplyAction = (typeof MCP_SERVER_APPLY_ACTIONS)[number];

export interface AppliedMcpServer {
  id: string;
  action: McpServerApplyAction;
}
