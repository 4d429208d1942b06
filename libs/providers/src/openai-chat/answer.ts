import { generateId, InvalidToolInputError, JSONParseError, NoSuchToolError, type FinishReason, type LanguageModelUsage } from 'ai';
import type { ModelToolCall } from '../model-answer';
import type { PromptMessage, ToolDefinition } from '../types';

type Json = Record<string, unknown>;

/** The chat-completions `finish_reason` as the AI SDK's OpenAI-compatible provider maps it. */
export function finishReasonOf(reason: unknown): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'function_call':
    case 'tool_calls':
      return 'tool-calls';
    default:
      return 'other';
  }
}

function tokenCount(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/**
 * The chat-completions `usage` as the AI SDK reports it: prompt tokens with the cached ones
 * among them, completion tokens with the reasoning ones, the total as their sum; all unknown
 * when the host sent no usage.
 */
export function usageOf(usage: unknown): Partial<LanguageModelUsage> {
  if (usage === null || typeof usage !== 'object') return {};
  const raw = usage as Json;
  const input = tokenCount(raw.prompt_tokens);
  const output = tokenCount(raw.completion_tokens);
  const cacheRead = tokenCount((raw.prompt_tokens_details as Json | null | undefined)?.cached_tokens);
  const reasoning = tokenCount((raw.completion_tokens_details as Json | null | undefined)?.reasoning_tokens);
  return {
    inputTokens: input,
    inputTokenDetails: { noCacheTokens: input - cacheRead, cacheReadTokens: cacheRead, cacheWriteTokens: undefined },
    outputTokens: output,
    outputTokenDetails: { textTokens: Math.max(0, output - reasoning), reasoningTokens: reasoning },
    totalTokens: input + output,
    reasoningTokens: reasoning,
    cachedInputTokens: cacheRead,
  };
}

/** `content` of a message or delta as text and reasoning pieces (some hosts send parts, with `thinking` ones). */
export function contentPieces(content: unknown): ContentPiece[] {
  if (typeof content === 'string') return content.length > 0 ? [{ reasoning: false, text: content }] : [];
  if (!Array.isArray(content)) return [];
  const pieces: ContentPiece[] = [];
  for (const part of content as Json[]) {
    if (part?.type === 'text' && typeof part.text === 'string') {
      if (part.text.length > 0) pieces.push({ reasoning: false, text: part.text });
    } else if (part?.type === 'thinking' && Array.isArray(part.thinking)) {
      const text = (part.thinking as Json[])
        .filter((chunk) => chunk?.type === 'text' && typeof chunk.text === 'string')
        .map((chunk) => chunk.text as string)
        .join('');
      if (text.length > 0) pieces.push({ reasoning: true, text });
    }
  }
  return pieces;
}

/** Keys that JSON.parse makes own properties but the SDK's parser refuses (prototype poisoning). */
const SUSPECT_KEY = /"(?:__proto__|constructor)"\s*:/;

function poisoned(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(poisoned);
  const record = value as Json;
  if (Object.hasOwn(record, '__proto__')) return true;
  const constructor = Object.hasOwn(record, 'constructor') ? record.constructor : undefined;
  if (constructor !== null && typeof constructor === 'object' && Object.hasOwn(constructor, 'prototype')) return true;
  return Object.values(record).some(poisoned);
}

/** JSON as the SDK parses what a provider sent (a tool call's input, a stream's event): with the same refusals. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: unknown } {
  try {
    const value: unknown = JSON.parse(text);
    if (SUSPECT_KEY.test(text) && poisoned(value)) throw new SyntaxError('Object contains forbidden prototype property');
    return { ok: true, value };
  } catch (cause) {
    return { ok: false, error: new JSONParseError({ text, cause }) };
  }
}

/** A tool call the model made, as the AI SDK's generateText/streamText hand it on; the error says why it is invalid. */
export interface ParsedToolCall extends ModelToolCall {
  error?: Error;
}

/**
 * A tool call checked as the SDK checks it against the offered tools (their schemas are not
 * validated, as the SDK's `jsonSchema` tools are not): an unknown tool or arguments that are
 * not JSON make it invalid, with the input parsed where it can be.
 */
export function parseToolCall(
  call: { id: string; name: string; arguments: string },
  tools: readonly ToolDefinition[] | undefined,
): ParsedToolCall {
  const known = tools?.some((tool) => tool.name === call.name) === true;
  if (known) {
    const parsed = call.arguments.trim() === '' ? { ok: true as const, value: {} } : parseJson(call.arguments);
    if (parsed.ok) return { toolCallId: call.id, toolName: call.name, input: parsed.value };
    return {
      toolCallId: call.id,
      toolName: call.name,
      input: call.arguments,
      invalid: true,
      error: new InvalidToolInputError({ toolName: call.name, toolInput: call.arguments, cause: parsed.error }),
    };
  }
  const parsed = parseJson(call.arguments);
  return {
    toolCallId: call.id,
    toolName: call.name,
    input: parsed.ok ? parsed.value : call.arguments,
    invalid: true,
    error: new NoSuchToolError({ toolName: call.name, ...(tools && { availableTools: tools.map((tool) => tool.name) }) }),
  };
}

/** A tool call id the host left out, made as the SDK makes one. */
export function newToolCallId(): string {
  return generateId();
}

/** One text or reasoning part of the assistant's turn, in the order the host sent them. */
export interface ContentPiece {
  reasoning: boolean;
  text: string;
}

/**
 * The assistant's turn as the SDK's `response.messages` give it: its reasoning and text parts
 * and tool calls in one assistant message, then, for invalid tool calls, a tool message with
 * their errors.
 */
export function responseMessagesOf(pieces: readonly ContentPiece[], toolCalls: readonly ParsedToolCall[]): PromptMessage[] {
  const content: Json[] = [];
  for (const piece of pieces) {
    if (!piece.reasoning && piece.text.length === 0) continue;
    content.push({ type: piece.reasoning ? 'reasoning' : 'text', text: piece.text, providerOptions: undefined });
  }
  for (const call of toolCalls) {
    content.push({
      type: 'tool-call',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.invalid && typeof call.input !== 'object' ? {} : call.input,
      providerExecuted: undefined,
      providerOptions: undefined,
    });
  }
  const messages: PromptMessage[] = [];
  if (content.length > 0) messages.push({ role: 'assistant', content } as PromptMessage);
  const errors = toolCalls.filter((call) => call.invalid);
  if (errors.length > 0) {
    messages.push({
      role: 'tool',
      content: errors.map((call) => ({
        type: 'tool-result' as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: 'error-text' as const, value: call.error?.message ?? 'unknown error' },
      })),
    });
  }
  return messages;
}

/** The tool calls as the turn's result lists them (without the parse errors). */
export function modelToolCalls(calls: readonly ParsedToolCall[]): ModelToolCall[] {
  return calls.map(({ toolCallId, toolName, input, invalid }) => ({ toolCallId, toolName, input, ...(invalid && { invalid }) }));
}
