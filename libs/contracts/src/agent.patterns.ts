import 'reflect-metadata';
import { errorMessage, type StreamErrorEvent } from '@waggle/errors';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { IsRunSurface, type RunSurface } from './conversation';
import type { FlatMetadata } from './flat-metadata';
import type { AcceptedRun } from './ledger';
import { integerFromDigits, MAX_CONTENT_LENGTH, WorkspaceIdRequest } from './common.dto';
import {
  KEEP_EVENTS_MAX_MS,
  REQUEST_ID_FORMAT,
  RepublishWebhookTargetRequest,
  RequestLookupRequest,
  WEBHOOK_TARGET_REPUBLISH_TIMEOUT_MS,
  type RepublishedWebhookTarget,
  type UsageObject,
} from './invocation.patterns';
import {
  ApplyMcpServersRequest,
  CreateMcpServerRequest,
  MCP_SERVER_ID_FORMAT,
  McpServerIdRequest,
  UpdateMcpServerRequest,
  type AppliedMcpServer,
  type DeletedMcpServer,
  type McpServerTestResult,
  type McpServerView,
} from './mcp-servers';
import { FallbacksField, ResponseFormatDto, ResponseFormatField, type ResponseFormat } from './response-format';
import { MCP_SELECTION_LIMITS, McpSelectionField, type McpSelection } from './mcp-selection';
import { CREDENTIAL_SOURCES, type CredentialSource } from './governance';
import { patternNames, rpc, SYNC_RUN_TIMEOUT_MS } from './rpc-contract';
import { WithRunLabels } from './run-labels';
import { WithRotationOverlap, type ShownWebhookSecret } from './webhook-owners';
import { McpPublishDto, McpPublishField, type McpPublish, type McpToolDescriptor } from './mcp-tools';

/** The spec's enums of the Agent resource. */
export const AGENT_PROMPT_CACHE_TTLS = ['disabled', '5m', '1h'] as const;
export const AGENT_REASONING_EFFORTS = ['low', 'medium', 'high', 'minimal', 'xhigh', 'max'] as const;
export const AGENT_TOOL_CHOICES = ['none', 'auto', 'required'] as const;
export type AgentPromptCacheTtl = (typeof AGENT_PROMPT_CACHE_TTLS)[number];
export type AgentReasoningEffort = (typeof AGENT_REASONING_EFFORTS)[number];
export type AgentToolChoice = (typeof AGENT_TOOL_CHOICES)[number];

/** Integer fields are stored as PostgreSQL `integer`. */
const INT4_MAX = 2_147_483_647;

/**
 * A field every update may leave out but never unset: absent keeps its value, null is refused.
 * (`@IsOptional()` lets null through: on the optional fields null unsets them, as the record
 * shows an unset field, so a record read can be sent back as an update.)
 */
const unlessAbsent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/**
 * The fields of an agent every request may set apart from the three required on create, and
 * `max_token` (whose declared type differs between create and update). The update-only fields
 * of the spec's table are accepted on create too (decisions: an agent can be made complete in
 * one call), with the same types and enums.
 */
class AgentOptionalFields {
  @IsOptional()
  @IsString()
  @Length(0, 10_000)
  description?: string | null;

  @IsOptional()
  @IsString()
  @Length(0, MAX_CONTENT_LENGTH)
  instruction_prompt?: string | null;

  /** The range the providers accept (and prompt params use). */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(2)
  temperature?: number | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(INT4_MAX)
  max_thinking_token?: number | null;

  @IsOptional()
  @IsIn(AGENT_PROMPT_CACHE_TTLS)
  provider_prompt_cache_ttl?: AgentPromptCacheTtl | null;

  @IsOptional()
  @IsIn(AGENT_REASONING_EFFORTS)
  reasoning_effort?: AgentReasoningEffort | null;

  @IsOptional()
  @IsIn(AGENT_TOOL_CHOICES)
  tool_choice?: AgentToolChoice | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(INT4_MAX)
  max_tool_calls?: number | null;

  /**
   * Catalog model ids tried in order when `llm_model` is unavailable (D41); each must do what
   * the agent's own model does (vision, tool calls) and, with a response_format, hold an
   * answer to a schema (checked on create and update).
   */
  @FallbacksField()
  fallbacks?: string[] | null;

  /** The JSON Schema the agent's answers must match (D42). */
  @ResponseFormatField()
  response_format?: ResponseFormatDto | null;

  /** MCP servers of the workspace and which of their tools the agent's runs offer (the spec's decisions, MCP); null for none. */
  @McpSelectionField()
  mcp?: McpSelection[] | null;
  /**
   * Whose provider keys its runs use (the spec's decisions on usage governance): `hosted` (the
   * operator's) or `workspace` (the workspace's own for the model's provider); null resets to `hosted`.
   */
  @IsOptional()
  @IsIn(CREDENTIAL_SOURCES)
  credentials?: CredentialSource | null;
  /** Offered as a tool of the workspace's MCP server (the spec's decisions, MCP); null unpublishes it. */
  @McpPublishField()
  publish?: McpPublishDto | null;
}

/** The `agent` object of a create: name, llm_model and model_type required. */
export class CreateAgentFields extends AgentOptionalFields {
  @IsString()
  @Length(1, 200)
  name!: string;

  /** A model id of the catalog, whose `model_type` is `llm`. */
  @IsString()
  @Length(1, 200)
  llm_model!: string;

  /** Must equal the catalog entry's `model_type` of `llm_model`. */
  @IsString()
  @Length(1, 50)
  model_type!: string;

  /** An integer; a string of digits is coerced (decisions). */
  @IsOptional()
  @Transform(integerFromDigits)
  @IsInt()
  @Min(1)
  @Max(INT4_MAX)
  max_token?: number | null;
}

/** The `agent` object of an update: every field optional; an absent field keeps its value. */
export class UpdateAgentFields extends AgentOptionalFields {
  @unlessAbsent()
  @IsString()
  @Length(1, 200)
  name?: string;

  @unlessAbsent()
  @IsString()
  @Length(1, 200)
  llm_model?: string;

  @unlessAbsent()
  @IsString()
  @Length(1, 50)
  model_type?: string;

  /** Declared an integer on update, and only an integer is taken. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(INT4_MAX)
  max_token?: number | null;
}

export class CreateAgentRequest {
  @IsUUID()
  workspace_id!: string;

  /** The spec's required wrapper. */
  @IsObject()
  @ValidateNested()
  @Type(() => CreateAgentFields)
  agent!: CreateAgentFields;
}

/**
 * One agent of a workspace. `agent_id` is any string: one that is not a UUID names no agent
 * and answers 422 "Agent not found" like an unknown one, not a validation error.
 */
export class AgentIdRequest {
  @IsUUID()
  workspace_id!: string;

  @IsString()
  agent_id!: string;
}

export class UpdateAgentRequest extends AgentIdRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => UpdateAgentFields)
  agent!: UpdateAgentFields;
}

/** The most knowledge bases one agent may search. */
export const AGENT_MAX_KNOWLEDGE_BASES = 10;

/** Replaces the knowledge bases attached to an agent (an empty list detaches them all). */
export class SetAgentKnowledgeBasesRequest extends AgentIdRequest {
  @IsArray()
  @ArrayMaxSize(AGENT_MAX_KNOWLEDGE_BASES)
  @IsUUID('all', { each: true })
  knowledge_base_ids!: string[];
}

/** The knowledge bases an agent's `knowledge_search` tool searches, in the order attached. */
export interface AgentKnowledgeBases {
  agent_id: string;
  knowledge_base_ids: string[];
}

export class RotateAgentWebhookSecretRequest extends WithRotationOverlap(AgentIdRequest) {}

/** A presented webhook secret, checked against every secret of the agent in force. */
export class VerifyAgentWebhookSecretRequest {
  @IsString()
  agent_id!: string;

  @IsString()
  @Length(0, 1000)
  secret!: string;
}

/** decisions: the agent record in responses. Unset optional fields are null. */
export interface AgentRecord {
  id: string;
  name: string;
  description: string | null;
  llm_model: string;
  model_type: string;
  instruction_prompt: string | null;
  temperature: number | null;
  max_token: number | null;
  max_thinking_token: number | null;
  provider_prompt_cache_ttl: AgentPromptCacheTtl | null;
  reasoning_effort: AgentReasoningEffort | null;
  tool_choice: AgentToolChoice | null;
  max_tool_calls: number | null;
  /** Empty when the agent names none. */
  fallbacks: string[];
  response_format: ResponseFormat | null;
  /** The MCP tools the agent's runs offer; null when unset. */
  mcp: McpSelection[] | null;
  /** Whose provider keys its runs use. */
  credentials: CredentialSource;
  /** Whether and how it is offered as a tool of the workspace's MCP server; null when never published. */
  publish: McpPublish | null;
  /** Always `active`: deleted agents are never returned. */
  status: 'active';
  created_at: string;
  updated_at: string;
}

export interface DeletedAgent {
  id: string;
}

export interface AgentWebhookSecretView extends ShownWebhookSecret {
  agent_id: string;
}

export interface AgentWebhookSecretCheck {
  /** True when the secret is one of the agent's secrets in force (two during a rotation's overlap). */
  valid: boolean;
  /** The agent's workspace; null when the secret is not valid. */
  workspace_id: string | null;
}

/** At most this many items in one `attachments` or `image_urls` array before the rules are even read (the rule itself is 5 together). */
const ATTACHMENT_ITEMS_MAX = 20;

/**
 * `attachments` as the spec allows it: an array of URL strings or `{ file_url }` objects. Only
 * the shape is checked here; the attachment rules (https only, at most 5 with image_urls,
 * supported types) are the agent service's, which names the offending item.
 */
export function IsAttachmentList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAttachmentList',
      constraints: [ATTACHMENT_ITEMS_MAX],
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value) &&
          value.length <= ATTACHMENT_ITEMS_MAX &&
          value.every(
            (item) =>
              (typeof item === 'string' && item.length <= 4096) ||
              (item !== null &&
                typeof item === 'object' &&
                !Array.isArray(item) &&
                Object.keys(item).every((key) => key === 'file_url') &&
                typeof (item as { file_url?: unknown }).file_url === 'string' &&
                (item as { file_url: string }).file_url.length <= 4096),
          ),
        defaultMessage: (args) =>
          errorMessage(
            { detail: 'validation_attachment_list', params: { property: args?.property ?? '', max: ATTACHMENT_ITEMS_MAX } },
            'en',
          ),
      },
    },
    options,
  );
}

/** What attaches files to one message: URL strings or `{ file_url }`, and the image shorthand. */
export class AgentMessageAttachments {
  @IsOptional()
  @IsAttachmentList()
  attachments?: Array<string | { file_url: string }>;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(ATTACHMENT_ITEMS_MAX)
  @IsString({ each: true })
  @MaxLength(4096, { each: true })
  image_urls?: string[];
}

export const AGENT_MESSAGE_ROLES = ['user', 'assistant', 'system'] as const;

/** spec: Agent message record (the `messages` input): caller-managed history, never stored. */
export class AgentMessageInput extends AgentMessageAttachments {
  @IsString()
  @MaxLength(MAX_CONTENT_LENGTH)
  content!: string;

  @IsIn(AGENT_MESSAGE_ROLES)
  role!: (typeof AGENT_MESSAGE_ROLES)[number];
}

/** What a caller gives an agent run, by invoke or (message, thread, metadata) by webhook. */
export class AgentRunInputs extends WithRunLabels(AgentMessageAttachments) {
  /** The agent's UUID; anything else is 422 "Agent not found". */
  @IsString()
  @MaxLength(100)
  agent!: string;

  @IsString()
  @MaxLength(MAX_CONTENT_LENGTH)
  message!: string;

  /** Any caller string: a new thread on first use, resumed later (scoped to the agent and workspace). */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  thread_id?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => AgentMessageInput)
  messages?: AgentMessageInput[];
}

/** An agent run as the gateway hands it to the agent service. */
export class AgentRunRequest extends AgentRunInputs {
  @IsUUID()
  workspace_id!: string;

  @Matches(REQUEST_ID_FORMAT)
  request_id!: string;

  /** As on a prompt run (PromptRunRequest.keep_events_ms): how long after the run its kept events stay. */
  @IsOptional()
  @IsInt()
  @Min(1_000)
  @Max(KEEP_EVENTS_MAX_MS)
  keep_events_ms?: number;

  /**
   * Set by the OpenAI-compatible surface, where `agent` may also be the agent's name when it is
   * unique in the workspace, and by the MCP server (the agent's id, always).
   */
  @IsRunSurface()
  surface?: RunSurface;
}

/** A background agent invoke without streaming, and where its result goes when the caller gave `async.callback_url`. */
export class AcceptAgentRunRequest extends AgentRunRequest {
  /** Checked by the gateway against the callback URL policy, as a trigger's is. */
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  callback_url?: string;
}

/** Whether a run still waiting in its queue was finished there as cancelled. */
export interface QueuedRunCancellation {
  cancelled: boolean;
}

/** decisions: one tool call of a non-streaming answer; input and observation as JSON strings. */
export interface AgentToolCallView {
  tool_name: string;
  tool_input: string;
  observation: string;
}

/** decisions: the non-streaming answer of an agent invoke. */
export interface AgentInvokeResponse {
  request_id: string;
  response: string;
  /** Present when the call named a thread. */
  thread_id?: string;
  model: string;
  usage: UsageObject;
  tool_calls: AgentToolCallView[];
}

/** decisions: agent stream events (the prompt shapes, `done` on text fragments, and `tool`). */
export type AgentStreamEvent =
  | { request_id: string; type: 'reasoning' | 'response'; model: string; response: string; done: boolean }
  | {
      request_id: string;
      type: 'tool';
      tool_id: string;
      tool: string;
      tool_type: string;
      tool_input: Record<string, unknown>;
      observation: string;
    }
  | { request_id: string; type: 'usage'; usage: UsageObject & { duration: number }; stop_reason: string }
  | StreamErrorEvent;

/** An accepted agent webhook trigger, queued for the agent service's workers (queue `agent-runs`). */
export interface AgentTriggerJob {
  request_id: string;
  workspace_id: string;
  agent_id: string;
  message: string;
  thread_id: string | null;
  metadata: FlatMetadata;
  user: string | null;
  /** Where the result goes; null for a background invoke without `async.callback_url`. */
  callback_url: string | null;
  accepted_at: string;
  /** A background invoke's other inputs (a webhook trigger has none of them). */
  messages?: AgentMessageInput[];
  attachments?: Array<string | { file_url: string }>;
  image_urls?: string[];
}

/** The longest one MCP tool call may take (the spec's decisions, MCP: 600 s in all), and 10 s to list the server's tools first. */
export const MCP_TOOL_CALL_TIMEOUT_MS = 610_000;

/**
 * One call of a workspace MCP server's tool, for a workflow `mcp_tool` step: the agent service
 * holds the servers and their sealed headers. `request_id` is the step's child request id, so a
 * cancel of the run reaches the call (RunCancellation).
 */
export class CallMcpToolRequest {
  @IsUUID()
  workspace_id!: string;

  @Matches(REQUEST_ID_FORMAT)
  request_id!: string;

  @Matches(MCP_SERVER_ID_FORMAT)
  server!: string;

  @IsString()
  @Length(1, MCP_SELECTION_LIMITS.toolNameLength)
  tool!: string;

  @IsObject()
  arguments!: Record<string, unknown>;
}

/** What an MCP tool answered: its structured content when it gave one, its text (cut at 100 KiB with a notice). */
export interface McpToolCallAnswer {
  structured_content?: Record<string, unknown>;
  text: string;
  is_error: boolean;
  truncated: boolean;
}

/**
 * What a pattern that tests an MCP server connection waits: the test's 10 s budget (the spec's
 * decisions, MCP, "connection test"), and the reads and writes around it.
 */
export const MCP_CONNECTION_RPC_TIMEOUT_MS = 20_000;
/** An apply of MCP servers: a connection test per changed server, one after another. */
export const MCP_SERVERS_APPLY_RPC_TIMEOUT_MS = 240_000;

/** The agent service: agents (CRUD and their webhook secrets), their runs, and the workspace's MCP servers. */
export const AgentContracts = {
  listAgents: rpc('agent.agents.list', WorkspaceIdRequest).returns<AgentRecord[]>(),
  createAgent: rpc('agent.agents.create', CreateAgentRequest).returns<AgentRecord>(),
  /** An active agent of the workspace; otherwise 422 `resource_not_found` "Agent not found". */
  getAgent: rpc('agent.agents.get', AgentIdRequest).returns<AgentRecord>(),
  updateAgent: rpc('agent.agents.update', UpdateAgentRequest).returns<AgentRecord>(),
  /** A soft delete: the agent is never read, listed, updated, invoked or triggered again. */
  deleteAgent: rpc('agent.agents.delete', AgentIdRequest).returns<DeletedAgent>(),
  getWebhookSecret: rpc('agent.agents.webhook-secret.get', AgentIdRequest).returns<AgentWebhookSecretView>(),
  rotateWebhookSecret: rpc('agent.agents.webhook-secret.rotate', RotateAgentWebhookSecretRequest).returns<AgentWebhookSecretView>(),
  getKnowledgeBases: rpc('agent.agents.knowledge-bases.get', AgentIdRequest).returns<AgentKnowledgeBases>(),
  /** Each knowledge base must be an active one of the agent's workspace (else 422 "Knowledge base not found"). */
  setKnowledgeBases: rpc('agent.agents.knowledge-bases.set', SetAgentKnowledgeBasesRequest).returns<AgentKnowledgeBases>(),
  /** For a trigger path that asks the owner rather than the registry; unknown agents are 422 "Agent not found". */
  verifyWebhookSecret: rpc('agent.agents.webhook-secret.verify', VerifyAgentWebhookSecretRequest).returns<AgentWebhookSecretCheck>(),
  /** The gateway found no registry entry for an agent trigger: write it again if the agent is active. */
  republishWebhookTarget: rpc('agent.agents.webhook-target.republish', RepublishWebhookTargetRequest, {
    timeoutMs: WEBHOOK_TARGET_REPUBLISH_TIMEOUT_MS,
  }).returns<RepublishedWebhookTarget>(),
  /** One run, answered whole. Everything that can be refused (agent, attachments, vision) is refused before the model is called. */
  invokeAgent: rpc('agent.runs.invoke', AgentRunRequest, { timeoutMs: SYNC_RUN_TIMEOUT_MS }).returns<AgentInvokeResponse>(),
  /** One run as events; refusals end the stream before its first event (the gateway answers them as JSON). */
  /** A background invoke without streaming: refused like an invoke, else queued on `agent-runs`, recorded `queued`, answered at once. */
  acceptAgent: rpc('agent.runs.accept', AcceptAgentRunRequest).returns<AcceptedRun>(),
  streamAgent: rpc('agent.runs.stream', AgentRunRequest, { timeoutMs: SYNC_RUN_TIMEOUT_MS }).streams<AgentStreamEvent>(),
  /** The workspace's published agents as MCP tools (the spec's decisions, MCP). */
  listMcpTools: rpc('agent.mcp-tools.list', WorkspaceIdRequest).returns<McpToolDescriptor[]>(),
  /**
   * A cancel (invocation's RunCanceller, the ledger's owner) finishes an agent trigger still waiting
   * in `agent-runs` where it waits: `cancelled` true when it did (the run is recorded and announced cancelled).
   */
  cancelQueuedRun: rpc('agent.runs.cancel-queued', RequestLookupRequest, { timeoutMs: 5_000 }).returns<QueuedRunCancellation>(),
  /**
   * One MCP tool call (a workflow `mcp_tool` step): 409 `mcp_tool_not_approved` when the tool changed
   * since its server was approved, 502 `mcp_tool_failed` when the server cannot be reached; a tool's
   * own error is an answer with `is_error`. Its caller waits what is left of its run (the run's deadline
   * cuts every call of its steps), at most as long as a tool call may take.
   */
  callMcpTool: rpc('agent.mcp-tools.call', CallMcpToolRequest, { timeoutMs: MCP_TOOL_CALL_TIMEOUT_MS }).returns<McpToolCallAnswer>(),
  /** The workspace's MCP servers, by id. */
  listMcpServers: rpc('agent.mcp-servers.list', WorkspaceIdRequest).returns<McpServerView[]>(),
  /** One server of the workspace; otherwise 404 `resource_not_found` "MCP server not found". */
  getMcpServer: rpc('agent.mcp-servers.get', McpServerIdRequest).returns<McpServerView>(),
  /** Validated, then (when enabled) tested: its tools become the approved snapshot. A failed test saves nothing (422 mcp_connection_failed). */
  createMcpServer: rpc('agent.mcp-servers.create', CreateMcpServerRequest, {
    timeoutMs: MCP_CONNECTION_RPC_TIMEOUT_MS,
  }).returns<McpServerView>(),
  /** As create; absent fields (headers included) keep their values. */
  updateMcpServer: rpc('agent.mcp-servers.update', UpdateMcpServerRequest, {
    timeoutMs: MCP_CONNECTION_RPC_TIMEOUT_MS,
  }).returns<McpServerView>(),
  deleteMcpServer: rpc('agent.mcp-servers.delete', McpServerIdRequest).returns<DeletedMcpServer>(),
  /** The connection test of a saved server: its tools now, and how they differ from the approved snapshot. */
  testMcpServer: rpc('agent.mcp-servers.test', McpServerIdRequest, {
    timeoutMs: MCP_CONNECTION_RPC_TIMEOUT_MS,
  }).returns<McpServerTestResult>(),
  /** The connection test of a definition not saved (a create's body); nothing is stored. */
  testMcpDefinition: rpc('agent.mcp-servers.test-definition', CreateMcpServerRequest, {
    timeoutMs: MCP_CONNECTION_RPC_TIMEOUT_MS,
  }).returns<McpServerTestResult>(),
  /** Lists the server's tools now and stores them as the approved snapshot. */
  approveMcpServer: rpc('agent.mcp-servers.approve', McpServerIdRequest, {
    timeoutMs: MCP_CONNECTION_RPC_TIMEOUT_MS,
  }).returns<McpServerView>(),
  /** An apply file's `mcp_servers:`: each created, updated, or left alone when nothing changed (then not connected to). */
  applyMcpServers: rpc('agent.mcp-servers.apply', ApplyMcpServersRequest, {
    timeoutMs: MCP_SERVERS_APPLY_RPC_TIMEOUT_MS,
  }).returns<AppliedMcpServer[]>(),
};

export const AgentPatterns = patternNames(AgentContracts);
