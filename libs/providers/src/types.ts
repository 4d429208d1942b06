import type { ModelRoute as CatalogModelRoute, CredentialSource, ModelPricing, ResponseFormat } from '@waggle/contracts';
import type { JSONSchema7, JSONValue, ModelMessage } from 'ai';
import type { WorkspaceCredential } from './workspace-credentials';

/** `local`: a model Waggle runs itself (the bundled embedding model), with no credentials or network. */
export type ProviderApi = 'openai' | 'anthropic' | 'google' | 'openai-compatible' | 'local';

/** What the model catalog knows about calling one model. */
export interface ModelRoute {
  /** Waggle's catalog id, the `model` clients see. */
  modelId: string;
  /** The serving provider's key (openai, anthropic, groq, ollama, …); it names the credentials. */
  provider: string;
  /** Display name, used in error messages. */
  providerName: string;
  providerApi: ProviderApi;
  /** The id the provider's API expects. */
  providerModelId: string;
  /** The provider holds an answer to a JSON schema itself; otherwise a response format is asked for in words (D42). */
  nativeJsonSchema?: boolean;
  /** The model's effective price (the catalog's, or the operator's override); absent or null: its calls are not charged. */
  pricing?: ModelPricing | null;
  /** The workspace's own key for `provider` (a run with `credentials: workspace`); unset: the operator's. */
  workspaceCredential?: WorkspaceCredential;
}

/** The route the catalog service answers over NATS, as the provider layer needs it. */
export function toModelRoute(
  route: Pick<CatalogModelRoute, 'id' | 'provider' | 'provider_name' | 'provider_api' | 'provider_model_id'> &
    Partial<Pick<CatalogModelRoute, 'is_json_schema' | 'pricing'>>,
): ModelRoute {
  return {
    modelId: route.id,
    provider: route.provider,
    providerName: route.provider_name,
    providerApi: route.provider_api,
    providerModelId: route.provider_model_id,
    ...(route.is_json_schema && { nativeJsonSchema: true }),
    ...(route.pricing && { pricing: route.pricing }),
  };
}

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/** A response format as the provider layer takes it (the contracts' ResponseFormat). */
export type JsonSchemaResponseFormat = ResponseFormat;

/** Why a model call did not answer, as its attempt records it. */
export type AttemptErrorCode = 'rate_limited' | 'provider_unavailable' | 'connection_failed' | 'timeout' | 'provider_error';

/** One model call of a run, as the ledger and a workflow step's record list them (D41). */
export interface ModelAttempt {
  /** The catalog model id. */
  model: string;
  /** Null: this call answered. */
  error_code: AttemptErrorCode | null;
  /** The provider's HTTP status, when it answered with an error status. */
  status?: number;
  duration_ms: number;
  /** This call asked the model to repair an answer that did not match the response format. */
  repair?: true;
  /** The answer did not match the response format: how many violations it had. */
  violations?: number;
}

/** A prompt version's parameters, provider-neutral. */
export interface PromptParams {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stop?: string[];
  /** Deterministic sampling where the provider offers it (an OpenAI client's `seed`). */
  seed?: number;
  /** OpenAI and OpenAI-compatible `reasoning_effort`; Google `thinkingLevel`. */
  reasoningEffort?: ReasoningEffort;
  /** Anthropic extended thinking budget; Google `thinkingBudget`. */
  thinkingBudget?: number;
  responseFormat?: JsonSchemaResponseFormat;
  /**
   * Anthropic prompt caching: the system prompt and the conversation up to its last message
   * are marked as cache breakpoints, so the next call with the same prefix reads them from
   * the cache (cheaper, faster). Other providers cache prefixes without being asked.
   */
  promptCache?: PromptCacheOptions;
}

/** Prompt parameters as the public API and definitions spell them (a prompt version's, a workflow step's). */
export interface SpecPromptParams {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  reasoning_effort?: ReasoningEffort;
  thinking_budget?: number;
}

/** A definition's parameters and its `response_format` (which sits beside them, D42) as the provider layer takes them. */
export function toPromptParams(params: SpecPromptParams, responseFormat?: JsonSchemaResponseFormat | null): PromptParams {
  return {
    temperature: params.temperature,
    topP: params.top_p,
    maxOutputTokens: params.max_tokens,
    stop: params.stop,
    reasoningEffort: params.reasoning_effort,
    thinkingBudget: params.thinking_budget,
    ...(responseFormat && { responseFormat }),
  };
}

export interface PromptCacheOptions {
  /** How long Anthropic keeps the prefix; its default is 5 minutes. */
  ttl?: '5m' | '1h';
}

/** A tool the model may call; the caller runs it and sends the result back in the next turn. */
export interface ToolDefinition {
  /** Letters, digits, `_` and `-`, as OpenAI and Anthropic accept. */
  name: string;
  description?: string;
  /** A JSON schema of the input object. */
  inputSchema: JSONSchema7;
}

/** `auto`: the model decides; `none`: no tool call; `required`: at least one; or that one tool. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; toolName: string };

/** A tool call the model asked for. */
export interface ToolCall {
  toolCallId: string;
  toolName: string;
  /** The parsed JSON input; the raw text when it was not JSON. */
  input: unknown;
  /** It names a tool the call did not offer, or its input is not JSON: answer it with an error result. */
  invalid?: true;
}

/** What running a tool call gave, sent back to the model in the next turn. */
export interface ToolResult {
  toolCallId: string;
  toolName: string;
  /** Text or any JSON value. */
  output: JSONValue;
  /** The tool failed; the output says why, and the model may try otherwise. */
  isError?: boolean;
}

/** The spec's usage object for prompt runs (without `duration`, which the caller measures). */
export interface SpecUsage {
  prompt_tokens: { total_tokens: number; cached_tokens: number };
  completion_tokens: { total_tokens: number; reasoning_tokens: number };
  total_tokens: number;
}

export type StopReason = 'completed' | 'max_tokens' | 'content_filter' | 'tool_calls' | 'error' | 'other';

/** The AI SDK's message shape: system / user / assistant; user content may hold `{ type: 'image', image: URL }` parts. */
export type PromptMessage = ModelMessage;

export interface PromptCall {
  messages: PromptMessage[];
  params?: PromptParams;
  /**
   * Tools the model may call in this one turn. Calls are answered, not run: the caller runs
   * the tools and calls again with the turn's `responseMessages` and a toolResultsMessage.
   */
  tools?: readonly ToolDefinition[];
  /** Unset: `auto`. */
  toolChoice?: ToolChoice;
  /** Aborting ends the provider's HTTP request; the call then rejects with the signal's reason. */
  abortSignal?: AbortSignal;
}

export interface CompletionResult {
  response: string;
  reasoning: string;
  /** The tool calls of this turn; stopReason is `tool_calls` when there are any. */
  toolCalls: ToolCall[];
  /**
   * The assistant's turn as messages to append to the conversation before the tool results:
   * its text, tool calls and (for Anthropic) signed reasoning, which the provider needs back.
   */
  responseMessages: PromptMessage[];
  usage: SpecUsage;
  /** What the answer's model calls cost (a repair's included). */
  cost: CallCost;
  stopReason: StopReason;
  /** The catalog model id of the model that answered. */
  model: string;
  /** Every model call the answer took: failed ones before a fallback answered, and a repair. */
  attempts: ModelAttempt[];
}

export type StreamPart =
  | { type: 'reasoning' | 'response'; text: string }
  /** A whole tool call, once its input has fully arrived. */
  | { type: 'tool-call'; toolCall: ToolCall }
  | { type: 'finish'; usage: SpecUsage; cost: CallCost; stopReason: StopReason; responseMessages: PromptMessage[] };

/**
 * What one model call cost (see cost.ts): in pico-USD (10^-12 USD, exact for prices of at most
 * six decimals per million tokens), unrounded, so a run rounds its sum once.
 */
export interface CallCost {
  picoUsd: number;
  /** The route's price version; null when the model has no price (the call is not charged). */
  priceVersion: string | null;
  credentials: CredentialSource;
  /** The provider's usage never came (a call cut short): the tokens it was priced for, estimated. */
  estimated?: { input: number; cacheRead: number; cacheWrite: number; output: number; reasoning: number };
}

/** What embedding texts gave: one vector per text, in order. */
export interface EmbeddingResult {
  embeddings: number[][];
  /** Input tokens the provider counted. */
  tokens: number;
  /** The catalog model id. */
  model: string;
}

export interface EmbeddingCall {
  values: string[];
  /** Shorter vectors, where the model supports it (OpenAI text-embedding-3, Google). */
  dimensions?: number;
  abortSignal?: AbortSignal;
}
