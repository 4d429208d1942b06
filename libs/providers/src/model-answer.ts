import type { FinishReason, LanguageModelUsage } from 'ai';
import type { PromptMessage } from './types';

/** A tool call as the model turn gave it: `invalid` when it names no offered tool or its input is not JSON. */
export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: boolean;
}

/**
 * What one whole model call answered, as the provider layer reads it from the AI SDK's
 * `generateText` result, and as the OpenAI chat client gives it.
 */
export interface ModelAnswer {
  text: string;
  reasoningText: string | undefined;
  toolCalls: ModelToolCall[];
  responseMessages: PromptMessage[];
  usage: Partial<LanguageModelUsage>;
  finishReason: FinishReason;
}

/**
 * The parts of a streamed model call the provider layer reads: the AI SDK's `fullStream` parts
 * of these types (with more fields), and what the OpenAI chat client yields. `other` stands for
 * the SDK's remaining part types, which are passed over.
 */
export type ModelStreamPart =
  | { type: 'reasoning-delta' | 'text-delta'; text: string }
  | { type: 'tool-input-delta'; delta: string }
  | ({ type: 'tool-call' } & ModelToolCall)
  | { type: 'finish-step'; usage: Partial<LanguageModelUsage> }
  | { type: 'error'; error: unknown }
  | { type: 'abort' }
  | { type: 'finish'; totalUsage: Partial<LanguageModelUsage>; finishReason: FinishReason }
  | { type: 'other' };

/** A streamed model call: its parts, then the assistant's turn as messages once it has finished. */
export interface ModelStream {
  parts: AsyncIterable<ModelStreamPart>;
  responseMessages(): Promise<PromptMessage[]>;
}
