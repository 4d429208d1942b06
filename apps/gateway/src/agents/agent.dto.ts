import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  getSchemaPath,
  OmitType,
  PartialType,
  PickType,
  type ApiPropertyOptions,
} from '@nestjs/swagger';
import {
  CREDENTIAL_SOURCES,
  type CredentialSource,
  AGENT_PROMPT_CACHE_TTLS,
  AGENT_REASONING_EFFORTS,
  AGENT_TOOL_CHOICES,
  MAX_CONTENT_LENGTH,
  MAX_FALLBACKS,
  MCP_SELECTION_LIMITS,
  MCP_SERVER_ID_FORMAT,
  MCP_TOOL_DESCRIPTION_MAX,
  MCP_TOOL_NAME_PATTERN,
  RESPONSE_FORMAT_NAME,
  RESPONSE_SCHEMA_MAX_BYTES,
  CreateAgentRequest,
  SetAgentKnowledgeBasesRequest,
  UpdateAgentRequest,
  type AgentPromptCacheTtl,
  type AgentReasoningEffort,
  type AgentRecord,
  type AgentToolChoice,
  type McpSelection,
  type McpPublish,
  type ResponseFormat,
} from '@waggle/contracts';

/** `POST …/agents`: the contract's create request without the workspace (the key's). Validated as the contract says. */
export class CreateAgentBody extends PickType(CreateAgentRequest, ['agent'] as const) {}

/** `PATCH …/agents/{id}`: the contract's update request without the workspace and the id (the path's). */
export class UpdateAgentBody extends PickType(UpdateAgentRequest, ['agent'] as const) {}

/** `PUT /v1/private/agents/{id}/knowledge_bases`. */
export class SetAgentKnowledgeBasesBody extends PickType(SetAgentKnowledgeBasesRequest, ['knowledge_base_ids'] as const) {}

// What the OpenAPI document says about the bodies and answers. The contract's classes carry
// class-validator rules only (contracts stay free of HTTP concerns), so these describe them.

const INTEGER = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;

/** `response_format` (decisions D42): the contract's ResponseFormatDto. */
export class ResponseFormatDoc implements ResponseFormat {
  @ApiProperty({ enum: ['json_schema'] })
  type!: 'json_schema';

  @ApiPropertyOptional({ pattern: RESPONSE_FORMAT_NAME.source, description: 'The name the provider is given for the schema' })
  name?: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: `A JSON Schema (draft 2020-12) the answer must match, at most ${RESPONSE_SCHEMA_MAX_BYTES / 1024} KiB of JSON`,
  })
  schema!: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Ask the provider to hold the answer to the schema exactly; Waggle validates either way' })
  strict?: boolean;
}

/** `credentials` (the spec's decisions on usage governance): whose provider keys the agent's runs use. */
const CREDENTIALS = {
  enum: CREDENTIAL_SOURCES,
  default: 'hosted',
  description:
    "Whose provider keys the agent's runs use: `hosted` (the operator's) or `workspace` (the workspace's own, stored with /v1/private/provider_credentials for the model's provider; none stored: 422 personal_model_missing_credentials)",
} as const;

/** `publish` (the spec's decisions, MCP): offered as a tool of the workspace's MCP server at POST /v1/mcp. */
export class McpPublishDoc implements McpPublish {
  @ApiProperty({ description: 'Offered as a tool of the workspace’s MCP server (POST /v1/mcp)' })
  mcp!: boolean;

  @ApiPropertyOptional({
    pattern: MCP_TOOL_NAME_PATTERN.source,
    description: 'The tool’s name, unique in the workspace; agent_<name> (lower-cased, other characters as _, at most 40) when absent',
  })
  tool_name?: string;

  @ApiPropertyOptional({ maxLength: MCP_TOOL_DESCRIPTION_MAX, description: 'The tool’s description; the agent’s own when absent' })
  description?: string;
}

/** A publish setting, or null for none. */
const PUBLISH: ApiPropertyOptions = { oneOf: [{ $ref: getSchemaPath(McpPublishDoc) }, { type: 'null' }] };

const FALLBACKS = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: 200 },
  maxItems: MAX_FALLBACKS,
  description:
    'Catalog model ids tried in order when llm_model is unavailable (decisions D41); each must be able to do what the agent asks of llm_model',
} as const;

/** One entry of an agent's `mcp` (the spec's decisions, MCP). */
export class McpSelectionDoc implements McpSelection {
  @ApiProperty({ pattern: MCP_SERVER_ID_FORMAT.source, description: 'The id of an MCP server of the workspace (/v1/private/mcp_servers)' })
  server!: string;

  @ApiProperty({
    oneOf: [
      { type: 'string', enum: ['*'] },
      {
        type: 'array',
        items: { type: 'string', minLength: 1, maxLength: MCP_SELECTION_LIMITS.toolNameLength },
        minItems: 1,
        maxItems: MCP_SELECTION_LIMITS.tools,
      },
    ],
    description: 'Every tool of the server ("*") or the tools named; only tools of the approved snapshot, unchanged, are offered',
  })
  tools!: string[] | '*';
}

const MCP: ApiPropertyOptions = {
  type: [McpSelectionDoc],
  maxItems: MCP_SELECTION_LIMITS.servers,
  nullable: true,
  description: 'The MCP servers of the workspace whose tools the runs offer, each server at most once; null for none',
};

/** A response format, or null for none. */
const RESPONSE_FORMAT: ApiPropertyOptions = { oneOf: [{ $ref: getSchemaPath(ResponseFormatDoc) }, { type: 'null' }] };

/** The `agent` object of a create. */
@ApiExtraModels(ResponseFormatDoc, McpPublishDoc)
export class CreateAgentFieldsDoc {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  name!: string;

  @ApiProperty({
    description: 'A model id of the catalog (GET /v1/public/models) whose model_type is llm',
    example: 'gpt-6-luna',
    minLength: 1,
    maxLength: 200,
  })
  llm_model!: string;

  @ApiProperty({ description: "Must equal the catalog entry's model_type of llm_model", example: 'llm', minLength: 1, maxLength: 50 })
  model_type!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 10_000 })
  description?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: MAX_CONTENT_LENGTH })
  instruction_prompt?: string | null;

  @ApiPropertyOptional({ type: 'number', nullable: true, minimum: 0, maximum: 2 })
  temperature?: number | null;

  @ApiPropertyOptional({
    description: 'An integer (declared a uuid string by the reference by mistake); a string of digits is accepted as that integer',
    oneOf: [
      { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
      { type: 'string', pattern: '^[0-9]+$' },
    ],
    nullable: true,
  })
  max_token?: number | string | null;

  @ApiPropertyOptional({ ...INTEGER, nullable: true })
  max_thinking_token?: number | null;

  @ApiPropertyOptional({ enum: AGENT_PROMPT_CACHE_TTLS, nullable: true })
  provider_prompt_cache_ttl?: AgentPromptCacheTtl | null;

  @ApiPropertyOptional({ enum: AGENT_REASONING_EFFORTS, nullable: true })
  reasoning_effort?: AgentReasoningEffort | null;

  @ApiPropertyOptional({ enum: AGENT_TOOL_CHOICES, nullable: true })
  tool_choice?: AgentToolChoice | null;

  @ApiPropertyOptional({ ...INTEGER, nullable: true })
  max_tool_calls?: number | null;

  @ApiPropertyOptional({ ...FALLBACKS, nullable: true })
  fallbacks?: string[] | null;

  @ApiPropertyOptional(RESPONSE_FORMAT)
  response_format?: ResponseFormatDoc | null;

  @ApiPropertyOptional(MCP)
  mcp?: McpSelectionDoc[] | null;
  @ApiPropertyOptional({ ...CREDENTIALS, nullable: true })
  credentials?: CredentialSource | null;
  @ApiPropertyOptional(PUBLISH)
  publish?: McpPublishDoc | null;
}

/** The `agent` object of an update: every field optional, null unsets an optional one. */
export class UpdateAgentFieldsDoc extends PartialType(OmitType(CreateAgentFieldsDoc, ['max_token'] as const)) {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 2_147_483_647, nullable: true })
  max_token?: number | null;
}

export class CreateAgentBodyDoc {
  @ApiProperty({ type: CreateAgentFieldsDoc })
  agent!: CreateAgentFieldsDoc;
}

export class UpdateAgentBodyDoc {
  @ApiProperty({ type: UpdateAgentFieldsDoc })
  agent!: UpdateAgentFieldsDoc;
}

/** decisions: the agent record. */
export class AgentDto implements AgentRecord {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: 'string', nullable: true })
  description!: string | null;

  @ApiProperty({ example: 'gpt-6-luna' })
  llm_model!: string;

  @ApiProperty({ example: 'llm' })
  model_type!: string;

  @ApiProperty({ type: 'string', nullable: true })
  instruction_prompt!: string | null;

  @ApiProperty({ type: 'number', nullable: true })
  temperature!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  max_token!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  max_thinking_token!: number | null;

  @ApiProperty({ enum: AGENT_PROMPT_CACHE_TTLS, nullable: true })
  provider_prompt_cache_ttl!: AgentPromptCacheTtl | null;

  @ApiProperty({ enum: AGENT_REASONING_EFFORTS, nullable: true })
  reasoning_effort!: AgentReasoningEffort | null;

  @ApiProperty({ enum: AGENT_TOOL_CHOICES, nullable: true })
  tool_choice!: AgentToolChoice | null;

  @ApiProperty({ type: 'integer', nullable: true })
  max_tool_calls!: number | null;

  @ApiProperty({ ...FALLBACKS, description: 'Empty when the agent names none' })
  fallbacks!: string[];

  @ApiProperty(RESPONSE_FORMAT)
  response_format!: ResponseFormat | null;

  @ApiProperty(MCP)
  mcp!: McpSelection[] | null;

  @ApiProperty(CREDENTIALS)
  credentials!: CredentialSource;
  @ApiProperty(PUBLISH)
  publish!: McpPublish | null;

  @ApiProperty({ enum: ['active'] })
  status!: 'active';

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class AgentListDto {
  @ApiProperty({ type: [AgentDto] })
  agents!: AgentDto[];
}

export class AgentItemDto {
  @ApiProperty({ type: AgentDto })
  agent!: AgentDto;
}

export class AgentWrittenDto extends AgentItemDto {
  @ApiProperty({ example: 'Agent created successfully' })
  message!: string;
}

export class AgentDeletedDto {
  @ApiProperty({ example: 'Agent deleted successfully' })
  message!: string;
}
