import type { ModelRoute as CatalogModelRoute } from '@waggle/contracts';
import type { ModelMessage } from 'ai';

export type ProviderApi = 'openai' | 'anthropic' | 'google' | 'openai-compatible';

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
}

/** The route the catalog service answers over NATS, as the provider layer needs it. */
export function toModelRoute(
  route: Pick<CatalogModelRoute, 'id' | 'provider' | 'provider_name' | 'provider_api' | 'provider_model_id'>,
): ModelRoute {
  return {
    modelId: route.id,
    provider: route.provider,
    providerName: route.provider_name,
    providerApi: route.provider_api,
    providerModelId: route.provider_model_id,
  };
}

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

export interface JsonSchemaResponseFormat {
  type: 'json_schema';
  name?: string;
  schema: object;
}

/** A prompt version's parameters, provider-neutral. */
export interface PromptParams {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stop?: string[];
  /** OpenAI and OpenAI-compatible `reasoning_effort`; Google `thinkingLevel`. */
  reasoningEffort?: ReasoningEffort;
  /** Anthropic extended thinking budget; Google `thinkingBudget`. */
  thinkingBudget?: number;
  responseFormat?: JsonSchemaResponseFormat;
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
  /** Aborting ends the provider's HTTP request; the call then rejects with the signal's reason. */
  abortSignal?: AbortSignal;
}

export interface CompletionResult {
  response: string;
  reasoning: string;
  usage: SpecUsage;
  stopReason: StopReason;
  /** The catalog model id. */
  model: string;
}

export type StreamPart = { type: 'reasoning' | 'response'; text: string } | { type: 'finish'; usage: SpecUsage; stopReason: StopReason };
