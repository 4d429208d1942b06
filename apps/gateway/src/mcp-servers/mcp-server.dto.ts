import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import {
  MAX_MCP_HEADER_VALUE_BYTES,
  MAX_MCP_HEADERS,
  MCP_FAILURE_STAGES,
  MCP_MASKED_HEADER_VALUE,
  MCP_SERVER_ID_FORMAT,
  MCP_SERVER_TIMEOUT_MS,
  type McpServerTestResult,
  type McpServerView,
  type McpToolView,
} from '@waggle/contracts';
import { ErrorBodyDto } from '../errors/error-body.dto';

// What the OpenAPI document says about the MCP server bodies and answers. The bodies are
// validated with the contract's classes (McpServerDefinition, McpServerChanges); these describe them.

const HEADERS = {
  type: 'object',
  additionalProperties: { type: 'string', maxLength: MAX_MCP_HEADER_VALUE_BYTES },
  maxProperties: MAX_MCP_HEADERS,
  description: `Sent with every request to the server (e.g. Authorization). Write-only: values are sealed at rest and read back as "${MCP_MASKED_HEADER_VALUE}"; sending "${MCP_MASKED_HEADER_VALUE}" keeps the stored value. Host, Mcp-*, hop-by-hop headers and Content-Length are refused.`,
  example: { Authorization: 'Bearer …' },
} as const;

/** `POST /v1/private/mcp_servers` and `POST /v1/private/mcp_servers/test`. */
export class McpServerDefinitionDoc {
  @ApiProperty({ pattern: MCP_SERVER_ID_FORMAT.source, description: 'Unique in the workspace; fixed once created', example: 'github' })
  id!: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'GitHub' })
  name!: string;

  @ApiProperty({
    maxLength: 2048,
    description: 'The Streamable HTTP endpoint: https, or http for a host the operator allows (MCP_URL_ALLOWLIST)',
    example: 'https://mcp.example.com/mcp',
  })
  url!: string;

  @ApiPropertyOptional(HEADERS)
  headers?: Record<string, string>;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MCP_SERVER_TIMEOUT_MS.min,
    maximum: MCP_SERVER_TIMEOUT_MS.max,
    default: MCP_SERVER_TIMEOUT_MS.default,
    description: "A tool call's time-out, restarted by each progress notification (600 s at most in all)",
  })
  timeout_ms?: number;

  @ApiPropertyOptional({
    default: true,
    description: 'An enabled server is tested on every write; a disabled one is kept but never connected to',
  })
  enabled?: boolean;
}

/** `PATCH /v1/private/mcp_servers/{id}`: every field optional, absent ones (headers included) kept; `id`, if sent, must be the same. */
export class McpServerChangesDoc extends PartialType(McpServerDefinitionDoc) {}

export class McpToolDto implements McpToolView {
  @ApiProperty()
  name!: string;

  @ApiPropertyOptional()
  title?: string;

  @ApiPropertyOptional()
  description?: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: "The tool's input JSON Schema" })
  input_schema!: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: "The tool's output JSON Schema" })
  output_schema?: Record<string, unknown>;
}

export class McpServerDto implements McpServerView {
  @ApiProperty({ pattern: MCP_SERVER_ID_FORMAT.source })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  url!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: [MCP_MASKED_HEADER_VALUE] },
    description: 'Every stored header name, its value masked',
  })
  headers!: Record<string, string>;

  @ApiProperty({ type: 'integer' })
  timeout_ms!: number;

  @ApiProperty()
  enabled!: boolean;

  @ApiProperty({ type: [McpToolDto], description: 'The approved tool snapshot: what agents and workflows may call' })
  tools!: McpToolDto[];

  @ApiProperty({ type: 'string', nullable: true, description: "The approved snapshot's hash (sha256, hex); null until one is approved" })
  tools_hash!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  tools_approved_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class McpServerListDto {
  @ApiProperty({ type: [McpServerDto], description: 'By id' })
  mcp_servers!: McpServerDto[];
}

export class McpServerTestResultDto implements McpServerTestResult {
  @ApiProperty({ enum: [true] })
  ok!: true;

  @ApiProperty({ description: 'The protocol revision spoken, e.g. 2026-07-28 or 2025-11-25', example: '2026-07-28' })
  protocol_version!: string;

  @ApiProperty({ type: [McpToolDto] })
  tools!: McpToolDto[];

  @ApiProperty({ type: [String], description: 'Tools new since the approved snapshot, or whose definition changed' })
  changed!: string[];

  @ApiProperty({ type: [String], description: 'Approved tools the server no longer lists' })
  removed!: string[];
}

export class McpServerDeletedDto {
  @ApiProperty({ example: 'MCP server deleted successfully' })
  message!: string;
}

export class McpConnectionFailureDetailsDto {
  @ApiProperty({ enum: MCP_FAILURE_STAGES, description: 'Where the test failed' })
  stage!: string;

  @ApiPropertyOptional({ type: 'integer', description: "The server's HTTP status (http_status, unauthorized)" })
  status?: number;

  @ApiPropertyOptional({ description: "The server's JSON-RPC error message (protocol), header values masked" })
  protocol_error?: string;

  @ApiProperty({ description: 'What failed, in English' })
  reason!: string;
}

/** 422 mcp_connection_failed. */
export class McpConnectionFailedBodyDto extends ErrorBodyDto {
  @ApiProperty({ type: McpConnectionFailureDetailsDto })
  details!: McpConnectionFailureDetailsDto;
}
