import 'reflect-metadata';
import type { StreamErrorEvent } from '@waggle/errors';
import type { FlatMetadata } from './flat-metadata';
import type { AcceptedRun, LedgerRequestType, RunStatus } from './ledger';
import { DeploymentVariantRequest, ListLimit, MAX_CONTENT_LENGTH, numberFromText, WorkspaceIdRequest } from './common.dto';
import { patternNames, rpc, PRIVATE_RPC_TIMEOUT_MS, SYNC_RUN_TIMEOUT_MS } from './rpc-contract';
import { FallbacksField, ResponseFormatDto, ResponseFormatField, type ResponseFormat } from './response-format';
import { RunLabels } from './run-labels';
import { IsRunSurface, PromptConversation, type ConversationToolCall, type RunSurface } from './conversation';
import { DeploymentWebhookSecretRequest, WithRotationOverlap, type ShownWebhookSecret } from './webhook-owners';
import type { StoredSplit } from './releases';
import { McpPublishDto, McpPublishField, type McpToolDescriptor } from './mcp-tools';
import { CREDENTIAL_SOURCES, type CredentialSource } from './governance';
import { SplitField, SplitTargetDto, WithVersionSelector, type ServedSplit } from './releases';
import { Transform, Type } from 'class-transformer';
import {
  IsISO8601,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
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
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/**
 * Heard by every replica of every service that runs runs (invocation, agent; no queue group).
 * Published when a streaming client goes away (`reason` `disconnected`: the run ends silently),
 * and sent as a request by a cancel (`reason` `cancelled`): the replica holding the run aborts
 * it and replies once it has settled (RunCancelReply); replicas not holding it stay silent.
 */
export const RUN_CANCEL_SUBJECT = 'invocation.runs.cancel';

/** Deployment and variant names: what clients put in `deployment` and `variant`. */
export const PROMPT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export const PROMPT_ROLES = ['system', 'user', 'assistant'] as const;
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;

export class PromptMessageDto {
  @IsIn(PROMPT_ROLES)
  role!: (typeof PROMPT_ROLES)[number];

  /** A LiquidJS template over the inputs. */
  @IsString()
  @Length(0, MAX_CONTENT_LENGTH)
  content!: string;
}

export class PromptParamsDto {
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;

  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  top_p?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  max_tokens?: number;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(4)
  @IsString({ each: true })
  stop?: string[];

  @IsOptional()
  @IsIn(REASONING_EFFORTS)
  reasoning_effort?: (typeof REASONING_EFFORTS)[number];

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  thinking_budget?: number;
}

export class PromptVariantSpec {
  @Matches(PROMPT_NAME_PATTERN)
  name!: string;

  /** A model id from the catalog. */
  @IsString()
  @Length(1, 200)
  model!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => PromptMessageDto)
  messages!: PromptMessageDto[];

  @IsOptional()
  @ValidateNested()
  @Type(() => PromptParamsDto)
  params?: PromptParamsDto;

  /** Input variables whose values are image URLs, sent to the model as images. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  image_inputs?: string[];

  /** Catalog model ids tried in order when `model` is unavailable (D41); each must do what the variant asks (checked at apply). */
  @FallbacksField()
  fallbacks?: string[];

  /** The JSON Schema the answer must match (D42). */
  @ResponseFormatField()
  response_format?: ResponseFormatDto;

  /**
   * Whose provider keys its runs use (the spec's decisions on usage governance): `hosted` (the
   * operator's, the default) or `workspace` (the workspace's own, stored for the model's provider).
   * Part of the version, like the model it goes with.
   */
  @IsOptional()
  @IsIn(CREDENTIAL_SOURCES)
  credentials?: CredentialSource;

  /**
   * Offered as a tool of the workspace's MCP server (the spec's decisions, MCP). Kept on the
   * variant, not in its versions: publishing makes no new version.
   */
  @McpPublishField()
  publish?: McpPublishDto | null;

  /**
   * Record a changed definition as a new version without serving it (the spec's decisions:
   * staged versions); a protected variant is staged whatever this says.
   */
  @IsOptional()
  @IsBoolean()
  stage?: boolean;

  /**
   * Serve the variant as a weighted split over other variants of the deployment (their deployed
   * versions) or versions of this one, sticky by the caller's `user`. Kept on the variant, not in
   * its versions, like `publish`; absent: no split (a stored one is removed).
   */
  @SplitField()
  split?: SplitTargetDto[];
}

export class PromptDeploymentSpec {
  @Matches(PROMPT_NAME_PATTERN)
  deployment!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => PromptVariantSpec)
  variants!: PromptVariantSpec[];
}

export class ApplyPromptsRequest {
  @IsUUID()
  workspace_id!: string;

  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => PromptDeploymentSpec)
  prompts!: PromptDeploymentSpec[];
}

export interface AppliedVariant {
  name: string;
  variant_id: string;
  /** The version the variant points at after this apply. */
  version: number;
  /** True when this apply made a new version (or the variant itself). */
  changed: boolean;
  /** Present and true when the new version was recorded without being served (`stage`, or a protected variant): `version` is it. */
  staged?: boolean;
  /** With `staged`: the version still served. */
  deployed_version?: number | null;
  /** With `staged`: true when it was staged because the variant is protected. */
  protected?: boolean;
}

export interface AppliedDeployment {
  deployment: string;
  prompt_endpoint_id: string;
  webhook_secret: string;
  created: boolean;
  variants: AppliedVariant[];
}

/** The spec's usage object of prompt runs. */
export interface UsageObject {
  prompt_tokens: { total_tokens: number; cached_tokens: number };
  completion_tokens: { total_tokens: number; reasoning_tokens: number };
  total_tokens: number;
}

/** How long a cancel waits for the replica holding the run to answer; past it the durable mark stops the run at its next start. */
export const RUN_CANCEL_HOLDER_WAIT_MS = 3_000;
const CANCEL_RPC_TIMEOUT_MS = 15_000;

/** The longest a run's events are kept after it ends: an Idempotency-Key's 24 h. */
export const KEEP_EVENTS_MAX_MS = 24 * 3600_000;

export const REQUEST_ID_FORMAT = /^req_[0-9a-f]{32}$/;

/** What a caller gives a prompt run, by invoke or by webhook: variable values, flat metadata, a user label. */
export class PromptRunInputs extends RunLabels {
  @IsOptional()
  @IsObject()
  inputs?: Record<string, unknown>;
}

/** A prompt run as the gateway hands it to the invocation service; `label` or `version` picks another version than the deployed one. */
export class PromptRunRequest extends WithVersionSelector(PromptRunInputs) {
  @IsUUID()
  workspace_id!: string;

  @Matches(REQUEST_ID_FORMAT)
  request_id!: string;

  @IsString()
  @Length(1, 200)
  deployment!: string;

  @IsString()
  @Length(1, 200)
  variant!: string;

  /**
   * Set by the gateway on a background stream, and on a stream started with an Idempotency-Key:
   * the service keeps the run's events (RunEventLog) this long after the run ends, so the
   * stream can be resumed or replayed. Ordinary streams leave it unset.
   */
  @IsOptional()
  @IsInt()
  @Min(1_000)
  @Max(KEEP_EVENTS_MAX_MS)
  keep_events_ms?: number;

  /** Set by the OpenAI-compatible surface and the MCP server; absent on the native routes. */
  @IsRunSurface()
  surface?: RunSurface;

  /**
   * The OpenAI-compatible surface's messages, tools, parameters and response format (decisions:
   * "chat completions, prompts"). With it, a template variable missing from `inputs` is refused.
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => PromptConversation)
  conversation?: PromptConversation;
}

/** The non-streaming answer: exactly the spec's seven fields, and the model's tool calls when a conversation offered tools. */
export interface PromptInvokeResponse {
  request_id: string;
  model: string;
  duration: number;
  reasoning: string;
  response: string;
  usage: UsageObject;
  stop_reason: string;
  tool_calls?: ConversationToolCall[];
  /** The version that served, when the run named a `label` or a `version` or the variant is a split (else the contract's fields only). */
  version?: number;
  /** The label the run named. */
  label?: string;
}

export type PromptStreamEvent =
  | { request_id: string; type: 'reasoning' | 'response'; model: string; response: string }
  /** Only when a conversation offered tools: one whole call, in the order the model made them. */
  | { request_id: string; type: 'tool_call'; model: string; tool_call: ConversationToolCall }
  /** `version` (and `label`) as in PromptInvokeResponse. */
  | { request_id: string; type: 'usage'; usage: UsageObject & { duration: number }; stop_reason: string; version?: number; label?: string }
  | StreamErrorEvent;

/** Why a run is stopped: its caller asked (POST …/cancel), or its streaming client left. A message without one is a disconnect. */
export type CancelReason = 'cancelled' | 'disconnected';

export interface CancelRunMessage {
  request_id: string;
  reason?: CancelReason;
}

/** The holder's reply to a `cancelled` CancelRunMessage: the run's status once it settled. */
export interface RunCancelReply {
  run_status: RunStatus;
}

/** decisions.md, run cancellation: the answer of `POST /v1/public/requests/{id}/cancel`. */
export interface CancelledRun {
  request_id: string;
  run_status: RunStatus;
}

export class RequestLookupRequest {
  @IsUUID()
  workspace_id!: string;

  @IsString()
  @Length(1, 100)
  request_id!: string;
}

/** A run's kept events after a sequence number (the operator's `request events`). */
export class RequestEventsRequest extends RequestLookupRequest {
  @IsOptional()
  @IsInt()
  @Min(0)
  after?: number;
}

/** One kept event of a run, numbered as its stream numbered it. */
export interface RunEventView {
  seq: number;
  event: unknown;
}

/** The states a run's ledger record moves through. */
export const REQUEST_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

/** decisions.md: the answer of `GET /v1/public/requests/{id}`. */
export interface RequestLookup {
  request_id: string;
  status: (typeof REQUEST_STATUSES)[number];
  /** `knowledge_search` only for an MCP client's knowledge base search (the spec's decisions, MCP). */
  request_type: LedgerRequestType;
  requestable_type: string;
  requestable_id: string;
  message: string | null;
  metadata: FlatMetadata;
  generated_at: string;
  started_at: string | null;
  ended_at: string | null;
  data: Record<string, unknown> | null;
  /** The trace of the client request that started the run (32 hex digits), null for records older than the field. */
  trace_id: string | null;
  /** `openai` when the OpenAI-compatible API started the run, `mcp` an MCP tool call; null for the native routes. */
  surface: RunSurface | null;
  /** What the run's model calls cost (integer micro-USD); null while it runs, when it called no model, or for a run older than costs. */
  cost_micros: number | null;
  /** The version of the prompt or workflow variant that served the run; null for agent runs and before a queued run starts. */
  version: number | null;
  /** The label a prompt run named (the spec's decisions: invoke additions); null when none. */
  label: string | null;
}

/** The ledger filters: one metadata pair, a time range, a state and an artifact, newest first, a page at a time. */
export class ListRequestsFilter extends ListLimit {
  @IsOptional()
  @IsString()
  @Length(1, 128)
  metadata_key?: string;

  /** Matched against the stored value as a string, and as a number or boolean when it reads as one. */
  @IsOptional()
  @IsString()
  @Length(0, 2048)
  metadata_value?: string;

  /** Runs whose caller gave this user label. */
  @IsOptional()
  @IsString()
  @Length(0, 256)
  user?: string;

  @IsOptional()
  @IsISO8601()
  from?: string;

  @IsOptional()
  @IsISO8601()
  to?: string;

  /** Runs in this state. */
  @IsOptional()
  @IsIn(REQUEST_STATUSES)
  status?: RequestLookup['status'];

  /** Runs of this artifact (its `requestable_id`: a prompt or workflow endpoint, an agent, …). */
  @IsOptional()
  @IsUUID()
  artifact?: string;

  /** Runs whose record names this model: the model that answered (a fallback when one did); workflow runs name none. */
  @IsOptional()
  @IsString()
  @Length(1, 200)
  model?: string;

  /** Runs started with this API key (its id). */
  @IsOptional()
  @IsUUID()
  api_key?: string;

  /** Runs that cost at least this much (integer micro-USD); a run without a cost is left out. */
  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  min_cost_micros?: number;

  /** Runs that cost at most this much (integer micro-USD); a run without a cost is left out. */
  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  max_cost_micros?: number;

  /** The next page: the runs older than this one (the last `request_id` of the page before). */
  @IsOptional()
  @IsString()
  @Length(1, 128)
  before?: string;
}

/** A run as the private ledger listing shows it: the lookup's fields and the user label. */
/** A run as the invocation service answers it: the public lookup, and the price version its cost was computed with (the gateway answers the lookup without it). */
export interface RequestRecordView extends RequestLookup {
  price_version: string | null;
}

export interface RequestListItem extends RequestRecordView {
  user: string | null;
  /** Whose provider credentials the run's model calls used. */
  credentials: CredentialSource | null;
  /** The API key that started the run (its id). */
  api_key_id: string | null;
  /** The model that answered (a fallback when one did); null for a workflow run and a run that called no model. */
  model: string | null;
  /** For a split variant's run: the target that served it. */
  split: ServedSplit | null;
}

/** A workspace's requests, newest first. */
export class ListRequestsRequest extends ListRequestsFilter {
  @IsUUID()
  workspace_id!: string;
}

export class PromptVersionsRequest extends DeploymentVariantRequest {}

export interface PromptVersionSummary {
  version_id: string;
  version: number;
  model: string;
  messages: Array<{ role: string; content: string }>;
  params: Record<string, unknown>;
  variables: string[];
  image_inputs: string[];
  /** Empty when the version names none. */
  fallbacks: string[];
  response_format: ResponseFormat | null;
  /** Whose provider keys its runs use. */
  credentials: CredentialSource;
  created_at: string;
  /** The deployed version (the `deployed` pointer). */
  current: boolean;
  /** The labels pointing at it (`latest` on the newest). */
  labels: string[];
}

export interface PromptDeploymentSummary {
  deployment: string;
  prompt_endpoint_id: string;
  created_at: string;
  variants: Array<{
    name: string;
    variant_id: string;
    version: number | null;
    model: string | null;
    variables: string[];
    /** The weighted split the variant serves instead of its deployed version (its id and targets in the file's order); null: none. */
    split: StoredSplit | null;
  }>;
}

/**
 * A prompt webhook trigger the gateway accepted (queue `prompt-runs`, job id =
 * request_id). The version is pinned when the trigger is accepted.
 */
export interface PromptTriggerJob {
  request_id: string;
  workspace_id: string;
  prompt_endpoint_id: string;
  variant_id: string;
  version_id: string;
  inputs: Record<string, unknown>;
  metadata: FlatMetadata;
  user: string | null;
  /** The label the run named, when it named one (the version is pinned all the same). */
  label?: string | null;
  /** The split target that was chosen, for a split variant's run. */
  split?: ServedSplit | null;
  /** Where the result goes; null for a background invoke, whose result is read from the ledger. */
  callback_url: string | null;
  accepted_at: string;
}

/** Webhook secrets of prompt deployments: shown and rotated through private routes and the CLI. */
export class PromptWebhookSecretRequest extends DeploymentWebhookSecretRequest {}

export class RotatePromptWebhookSecretRequest extends WithRotationOverlap(PromptWebhookSecretRequest) {}

export interface WebhookSecretView extends ShownWebhookSecret {
  deployment: string;
  prompt_endpoint_id: string;
}

/** Asks the owner to write a webhook target to the registry again (the registry lost it). */
export class RepublishWebhookTargetRequest {
  @IsUUID()
  id!: string;
}

/** A republish is asked while a webhook trigger waits at the gateway: its owner answers quickly or the trigger is 503. */
export const WEBHOOK_TARGET_REPUBLISH_TIMEOUT_MS = 5_000;

export interface RepublishedWebhookTarget {
  /** False when the owner has no such deployment: the trigger's 404 is real. */
  found: boolean;
}

// Workflow deployments.

/**
 * A workflow definition file's `workflows:` list for one workspace. The shape inside is
 * the workflow definition format's, checked by @waggle/workflows (paths such as
 * `workflows[0].variants[0].steps[2].url`), not here: class-validator only bounds the list.
 */
export class ApplyWorkflowsRequest {
  @IsUUID()
  workspace_id!: string;

  @IsArray()
  @ArrayMaxSize(500)
  workflows!: unknown[];
}

export interface AppliedWorkflowVariant {
  name: string;
  variant_id: string;
  /** The version the variant points at after this apply. */
  version: number;
  /** True when this apply made a new version (or the variant itself). */
  changed: boolean;
}

export interface AppliedWorkflowDeployment {
  deployment: string;
  workflow_deployment_id: string;
  /** Signs the deployment's `workflow.*` callbacks. */
  webhook_secret: string;
  created: boolean;
  variants: AppliedWorkflowVariant[];
}

/** A workflow input as the definition declares it. */
export interface WorkflowInputSummary {
  type: string;
  required: boolean;
  default?: unknown;
}

export interface WorkflowDeploymentSummary {
  deployment: string;
  workflow_deployment_id: string;
  created_at: string;
  variants: Array<{ name: string; variant_id: string; version: number | null; inputs: Record<string, WorkflowInputSummary> }>;
}

export interface WorkflowVersionSummary {
  version_id: string;
  version: number;
  /** The parsed variant with its defaults applied, as runs of this version execute it. */
  definition: Record<string, unknown>;
  created_at: string;
  current: boolean;
}

export interface WorkflowWebhookSecretView extends ShownWebhookSecret {
  deployment: string;
  workflow_deployment_id: string;
}

export class WorkflowVersionsRequest extends DeploymentVariantRequest {}

export class WorkflowWebhookSecretRequest extends DeploymentWebhookSecretRequest {}

export class RotateWorkflowWebhookSecretRequest extends WithRotationOverlap(WorkflowWebhookSecretRequest) {}

// Workflow runs.

/** `async` of a workflow invoke: `enabled`, and where the result goes when it is. */
export class WorkflowAsyncOptions {
  @IsDefined()
  @IsBoolean()
  enabled!: boolean;

  /** Required when enabled (checked by the gateway, which names it as missing). */
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  callback_url?: string;
}

/** The public body of `POST /v1/workflow/invoke`. */
export class WorkflowInvokeInputs extends RunLabels {
  @IsString()
  @Length(1, 200)
  deployment!: string;

  @IsString()
  @Length(1, 200)
  variant!: string;

  /** Values of the variant's declared inputs. */
  @IsOptional()
  @IsObject()
  inputs?: Record<string, unknown>;

  @IsOptional()
  @ValidateNested()
  @Type(() => WorkflowAsyncOptions)
  async?: WorkflowAsyncOptions;
}

/** The workspace's plan values a run is accepted under (null = unlimited), from the gateway's key check. */
export class WorkflowRunLimits {
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  concurrency!: number | null;

  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  steps_per_run!: number | null;

  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  tool_calls_per_day!: number | null;
}

/** The subjects a workflow run's steps are told on, one per run: `invocation.workflow-runs.progress.<request id>`. */
export const WORKFLOW_RUN_PROGRESS_SUBJECT = 'invocation.workflow-runs.progress';
const WORKFLOW_PROGRESS_SUBJECT_FORMAT = /^invocation\.workflow-runs\.progress\.req_[0-9a-f]{32}$/;

/** One step of a run finished (completed, or failed and continued past): how many so far, and its key. */
export interface WorkflowStepProgress {
  steps_done: number;
  step_key: string;
}

/** A workflow invoke as the gateway hands it to the invocation service. */
export class WorkflowRunRequest extends WorkflowInvokeInputs {
  @IsUUID()
  workspace_id!: string;

  @Matches(REQUEST_ID_FORMAT)
  request_id!: string;

  @ValidateNested()
  @Type(() => WorkflowRunLimits)
  limits!: WorkflowRunLimits;

  /** Set by the MCP surface (the spec's decisions, MCP); absent on the native route. */
  @IsRunSurface()
  surface?: RunSurface;

  /**
   * Set by a caller that wants each finished step told as it happens (an MCP client's progress
   * token): the subject, under WORKFLOW_RUN_PROGRESS_SUBJECT, the replica executing the run
   * publishes a WorkflowStepProgress on after each step. Only a sync run executed where it was
   * admitted reports; anything else runs as without it.
   */
  @IsOptional()
  @IsString()
  @Matches(WORKFLOW_PROGRESS_SUBJECT_FORMAT)
  progress_subject?: string;
}

/** The spec's three answers of a workflow invoke. */
export type WorkflowInvokeResponse =
  | { request_id: string; run_status: 'completed'; output: string }
  | { request_id: string; run_status: 'running' | 'queued'; webhook_secret: string };

export class WorkflowRunLookupRequest {
  @IsUUID()
  workspace_id!: string;

  @IsString()
  @Length(1, 100)
  request_id!: string;
}

/** decisions "workflow run lookup": `GET /v1/workflow_runs/{id}` answers `{workflow_run: this}`. */
export interface WorkflowRunView {
  id: string;
  /** The run's public token: its request id. */
  token: string;
  run_status: RunStatus;
  run_async: boolean;
  start_inputs: Record<string, unknown>;
  output_content: string | null;
  error_message: string | null;
  started_at: string | null;
  ended_at: string | null;
  /** Seconds, once ended. */
  duration: number | null;
  total_tokens: number;
  async_webhook_url: string | null;
}

/** One step record of a run, as the private route lists it, in execution order. */
export interface WorkflowStepRecordView {
  step_key: string;
  step_id: string;
  step_type: string;
  iteration: number | null;
  status: 'running' | 'completed' | 'failed';
  inputs: unknown;
  output: unknown;
  error: string | null;
  error_code: string | null;
  tokens: number;
  model_calls: number;
  /** A model step's calls when a fallback could answer or it took more than one: model, error code, duration (D41). */
  model_attempts?: unknown[];
  /** How often the step was run (a re-run after a lost lease counts one more). */
  attempts: number;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
}

/** A workflow run to execute (queue `workflow-runs`, job id = request_id). Everything else is in its row. */
export interface WorkflowRunJob {
  request_id: string;
  workspace_id: string;
}

/** Published when a run reaches a terminal state, so a replica holding its sync invoke answers at once. */
export const WORKFLOW_RUN_FINISHED_SUBJECT = 'invocation.workflow-runs.finished';

export interface WorkflowRunFinishedMessage {
  request_id: string;
}

/**
 * The invocation service: prompt deployments, their variants and versions, runs and the request
 * ledger; workflow deployments (apply, list, versions, webhook secrets) and workflow runs (invoke,
 * lookup, step records).
 */
export const InvocationContracts = {
  applyPrompts: rpc('invocation.prompts.apply', ApplyPromptsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<AppliedDeployment[]>(),
  listPrompts: rpc('invocation.prompts.list', WorkspaceIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    PromptDeploymentSummary[]
  >(),
  listPromptVersions: rpc('invocation.prompts.versions', PromptVersionsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    PromptVersionSummary[]
  >(),
  invokePrompt: rpc('invocation.prompts.invoke', PromptRunRequest, { timeoutMs: SYNC_RUN_TIMEOUT_MS }).returns<PromptInvokeResponse>(),
  /**
   * A background invoke without streaming: refused like an invoke (unknown deployment, missing
   * variables…), else queued on `prompt-runs` (version pinned), recorded `queued` and answered at once.
   */
  acceptPrompt: rpc('invocation.prompts.accept', PromptRunRequest).returns<AcceptedRun>(),
  /** One value per event. */
  streamPrompt: rpc('invocation.prompts.stream', PromptRunRequest, { timeoutMs: SYNC_RUN_TIMEOUT_MS }).streams<PromptStreamEvent>(),
  getWebhookSecret: rpc('invocation.prompts.webhook-secret.get', PromptWebhookSecretRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<WebhookSecretView>(),
  rotateWebhookSecret: rpc('invocation.prompts.webhook-secret.rotate', RotatePromptWebhookSecretRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<WebhookSecretView>(),
  republishWebhookTarget: rpc('invocation.prompts.webhook-target.republish', RepublishWebhookTargetRequest, {
    timeoutMs: WEBHOOK_TARGET_REPUBLISH_TIMEOUT_MS,
  }).returns<RepublishedWebhookTarget>(),
  getRequest: rpc('invocation.requests.get', RequestLookupRequest).returns<RequestRecordView>(),
  /** Waits for the run's holder to settle it (a bounded wait, RUN_CANCEL_HOLDER_WAIT_MS). */
  cancelRequest: rpc('invocation.requests.cancel', RequestLookupRequest, { timeoutMs: CANCEL_RPC_TIMEOUT_MS }).returns<CancelledRun>(),
  /** A background or idempotent stream's kept events after `after`, then the run live to its end. */
  requestEvents: rpc('invocation.requests.events', RequestEventsRequest, { timeoutMs: SYNC_RUN_TIMEOUT_MS }).streams<RunEventView>(),
  listRequests: rpc('invocation.requests.list', ListRequestsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<RequestListItem[]>(),
  applyWorkflows: rpc('invocation.workflows.apply', ApplyWorkflowsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    AppliedWorkflowDeployment[]
  >(),
  listWorkflows: rpc('invocation.workflows.list', WorkspaceIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    WorkflowDeploymentSummary[]
  >(),
  listWorkflowVersions: rpc('invocation.workflows.versions', WorkflowVersionsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    WorkflowVersionSummary[]
  >(),
  getWorkflowWebhookSecret: rpc('invocation.workflows.webhook-secret.get', WorkflowWebhookSecretRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<WorkflowWebhookSecretView>(),
  rotateWorkflowWebhookSecret: rpc('invocation.workflows.webhook-secret.rotate', RotateWorkflowWebhookSecretRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<WorkflowWebhookSecretView>(),
  invokeWorkflow: rpc('invocation.workflow-runs.invoke', WorkflowRunRequest, {
    timeoutMs: SYNC_RUN_TIMEOUT_MS,
  }).returns<WorkflowInvokeResponse>(),
  getWorkflowRun: rpc('invocation.workflow-runs.get', WorkflowRunLookupRequest).returns<WorkflowRunView>(),
  /** The workspace's published prompt and workflow variants as MCP tools (the spec's decisions, MCP). */
  listMcpTools: rpc('invocation.mcp-tools.list', WorkspaceIdRequest).returns<McpToolDescriptor[]>(),
  listWorkflowRunSteps: rpc('invocation.workflow-runs.steps', WorkflowRunLookupRequest).returns<WorkflowStepRecordView[]>(),
};

export const InvocationPatterns = patternNames(InvocationContracts);
