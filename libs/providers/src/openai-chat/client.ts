import { setTimeout as sleep } from 'node:timers/promises';
import { APICallError, InvalidResponseDataError, RetryError, ToolChoiceViolationError, TypeValidationError } from 'ai';
import type { Dispatcher } from 'undici';
import { leanRequest } from '../lean-fetch';
import type { ModelAnswer, ModelStream, ModelStreamPart } from '../model-answer';
import type { PromptMessage, ToolChoice, ToolDefinition } from '../types';
import {
  contentPieces,
  finishReasonOf,
  modelToolCalls,
  newToolCallId,
  parseJson,
  parseToolCall,
  responseMessagesOf,
  usageOf,
  type ContentPiece,
  type ParsedToolCall,
} from './answer';
import { EventDataSplitter } from './events';
import { isChunk, isCompletion, isErrorBody } from './shape';

type Json = Record<string, unknown>;

/** Where a chat model is called: the host's chat-completions URL, its key, and the connections to it. */
export interface OpenAIChatEndpoint {
  url: string;
  apiKey?: string;
  dispatcher?: Dispatcher;
}

/** One call's request as the client sends it, and what it checks the answer against. */
export interface OpenAIChatCall {
  body: Json;
  tools: readonly ToolDefinition[] | undefined;
  toolChoice: ToolChoice | undefined;
  maxRetries: number;
  abortSignal?: AbortSignal;
}

/** The SDK's own test for an aborted call: such an error is never retried nor wrapped. */
function isAbortError(error: unknown): boolean {
  return (
    (error instanceof Error || error instanceof DOMException) &&
    (error.name === 'AbortError' || error.name === 'ResponseAborted' || error.name === 'TimeoutError')
  );
}

/** The network failures the SDK retries after a response had started. */
const NETWORK_CODES = new Set([
  'ConnectionRefused',
  'ConnectionClosed',
  'FailedToOpenSocket',
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function networkFailure(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  }
  return false;
}

function headersOf(answer: Dispatcher.ResponseData): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** How long the SDK waits before the next try: the host's `retry-after-ms` or `retry-after` when under a minute, else the backoff. */
function retryDelayMs(error: unknown, backoffMs: number): number {
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  if (!headers) return backoffMs;
  let ms: number | undefined;
  const retryAfterMs = headers['retry-after-ms'];
  if (retryAfterMs && !Number.isNaN(parseFloat(retryAfterMs))) ms = parseFloat(retryAfterMs);
  const retryAfter = headers['retry-after'];
  if (retryAfter && ms === undefined) {
    const seconds = parseFloat(retryAfter);
    ms = Number.isNaN(seconds) ? Date.parse(retryAfter) - Date.now() : seconds * 1000;
  }
  return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < backoffMs) ? ms : backoffMs;
}

const messageOf = (error: unknown): string =>
  error == null ? 'unknown error' : typeof error === 'string' ? error : error instanceof Error ? error.message : JSON.stringify(error);

/**
 * Tries as the AI SDK does (maxRetries more times, from 2 s doubling, or when the host says):
 * retryable failures (a 408, 409, 429 or 5xx, a network failure) are tried again, and the
 * failure after more than one try is a RetryError holding each.
 */
async function withRetries<T>(maxRetries: number, signal: AbortSignal | undefined, attempt: () => Promise<T>): Promise<T> {
  const errors: unknown[] = [];
  let backoffMs = 2_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (isAbortError(error) || maxRetries === 0) throw error;
      errors.push(error);
      const tries = errors.length;
      if (tries > maxRetries) {
        throw new RetryError({
          message: `Failed after ${tries} attempts. Last error: ${messageOf(error)}`,
          reason: 'maxRetriesExceeded',
          errors,
        });
      }
      if (!(APICallError.isInstance(error) && error.isRetryable)) {
        if (tries === 1) throw error;
        throw new RetryError({
          message: `Failed after ${tries} attempts with non-retryable error: '${messageOf(error)}'`,
          reason: 'errorNotRetryable',
          errors,
        });
      }
      await sleep(retryDelayMs(error, backoffMs), undefined, { signal });
      backoffMs *= 2;
    }
  }
}

/**
 * A chat model of an OpenAI-compatible host, called without the AI SDK: the request built and
 * the answer (whole or streamed) read as the SDK's OpenAI-compatible provider does, with the
 * same errors, retries, usage, finish reasons, tool calls and response messages, so the
 * provider layer cannot tell them apart (libs/providers/test/openai-chat-conformance.int-spec.ts).
 */
export class OpenAIChatModel {
  private readonly headers: Record<string, string>;

  constructor(
    readonly modelId: string,
    private readonly endpoint: OpenAIChatEndpoint,
  ) {
    this.headers = {
      'content-type': 'application/json',
      ...(endpoint.apiKey && { authorization: `Bearer ${endpoint.apiKey}` }),
    };
  }

  /** One whole answer. */
  async generate(call: OpenAIChatCall): Promise<ModelAnswer> {
    const text = JSON.stringify(call.body);
    const completion = await withRetries(call.maxRetries, call.abortSignal, async () => {
      const answer = await this.post(text, call);
      const responseHeaders = headersOf(answer);
      const responseBody = await this.read(answer, call, responseHeaders);
      const parsed = parseJson(responseBody);
      if (!parsed.ok || !isCompletion(parsed.value)) {
        throw new APICallError({
          message: 'Invalid JSON response',
          cause: parsed.ok ? new TypeValidationError({ value: parsed.value, cause: 'not a chat completion' }) : parsed.error,
          statusCode: answer.statusCode,
          responseHeaders,
          responseBody,
          url: this.endpoint.url,
          requestBodyValues: call.body,
        });
      }
      if (parsed.value.choices.length === 0) {
        throw new InvalidResponseDataError({ data: parsed.value, message: 'Response did not contain any choices.' });
      }
      return parsed.value;
    });
    const choice = completion.choices[0];
    const message = choice.message as Json;
    const pieces: ContentPiece[] = [];
    const reasoning = (message.reasoning_content ?? message.reasoning) as string | null | undefined;
    if (reasoning) pieces.push({ reasoning: true, text: reasoning });
    pieces.push(...contentPieces(message.content));
    const toolCalls = ((message.tool_calls ?? []) as Json[]).map((wire) => {
      const fn = wire.function as { name: string; arguments: string };
      return parseToolCall(
        { id: (wire.id as string | null | undefined) ?? newToolCallId(), name: fn.name, arguments: fn.arguments },
        call.tools,
      );
    });
    const finishReason = finishReasonOf(choice.finish_reason);
    this.checkToolChoice(call.toolChoice, call.tools, toolCalls, finishReason);
    const reasoningPieces = pieces.filter((piece) => piece.reasoning);
    return {
      text: pieces
        .filter((piece) => !piece.reasoning)
        .map((piece) => piece.text)
        .join(''),
      reasoningText: reasoningPieces.length > 0 ? reasoningPieces.map((piece) => piece.text).join('') : undefined,
      toolCalls: modelToolCalls(toolCalls),
      responseMessages: responseMessagesOf(pieces, toolCalls),
      usage: usageOf(completion.usage),
      finishReason,
    };
  }

  /** The answer as it streams: the request is sent on the first read. */
  stream(call: OpenAIChatCall): ModelStream {
    let messages: PromptMessage[] | undefined;
    const parts = this.streamParts(call, (done) => (messages = done));
    return {
      parts,
      responseMessages: async () => {
        if (!messages) throw new InvalidResponseDataError({ data: undefined, message: 'The stream has not finished.' });
        return messages;
      },
    };
  }

  private async *streamParts(call: OpenAIChatCall, finished: (messages: PromptMessage[]) => void): AsyncGenerator<ModelStreamPart> {
    const text = JSON.stringify(call.body);
    const answer = await withRetries(call.maxRetries, call.abortSignal, async () => {
      const response = await this.post(text, call);
      if (response.statusCode >= 200 && response.statusCode < 300) return response;
      await this.read(response, call, headersOf(response));
      throw new Error('unreachable: a failed response is thrown by read');
    });
    // With tool choice `none` the SDK holds tool parts back and fails the call if any came.
    const withhold = call.toolChoice === 'none';
    const state = new ChunkState();
    const splitter = new EventDataSplitter();
    let complete = false;
    try {
      for await (const chunk of this.bodyChunks(answer, call)) {
        for (const data of splitter.push(chunk)) {
          if (data === '[DONE]') continue;
          for (const part of state.take(data)) if (!(withhold && part.type === 'tool-input-delta')) yield part;
        }
      }
      const toolCalls = state.finishToolCalls().map((wire) => parseToolCall(wire, call.tools));
      if (!withhold) for (const toolCall of modelToolCalls(toolCalls)) yield { type: 'tool-call', ...toolCall };
      if (state.finishReason === undefined) {
        throw new InvalidResponseDataError({ data: undefined, message: 'Response stream ended without a finish reason.' });
      }
      if (withhold && toolCalls.length > 0) {
        throw new ToolChoiceViolationError({
          toolChoice: { type: 'none' },
          finishReason: state.finishReason,
          provider: 'openai-chat',
          modelId: this.modelId,
          content: [],
        });
      }
      const usage = usageOf(state.usage);
      finished(responseMessagesOf(state.pieces, toolCalls));
      complete = true;
      yield { type: 'finish-step', usage };
      yield { type: 'finish', totalUsage: usage, finishReason: state.finishReason };
    } finally {
      if (!complete && !answer.body.destroyed) answer.body.destroy();
    }
  }

  /** The body's text as it arrives; a read that fails is the SDK's failure of a started response. */
  private async *bodyChunks(answer: Dispatcher.ResponseData, call: OpenAIChatCall): AsyncGenerator<string> {
    const iterator = (answer.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const decoder = new TextDecoder();
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw this.readFailure(error, answer, headersOf(answer), call, 'Failed to process successful response');
      }
      if (next.done) return;
      yield decoder.decode(next.value, { stream: true });
    }
  }

  private async post(text: string, call: OpenAIChatCall): Promise<Dispatcher.ResponseData> {
    try {
      return await leanRequest(
        this.endpoint.url,
        { method: 'POST', headers: this.headers, body: text, signal: call.abortSignal },
        this.endpoint.dispatcher,
      );
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (!isAbortError(error) && error instanceof TypeError && error.message === 'fetch failed' && cause != null) {
        throw new APICallError({
          message: `Cannot connect to API: ${messageOf(cause)}`,
          cause,
          url: this.endpoint.url,
          requestBodyValues: call.body,
          isRetryable: true,
        });
      }
      throw error;
    }
  }

  /**
   * The response's text when it succeeded; when it did not, the failure the SDK makes of it:
   * the host's `error.message` (or no message) with the status, retryable on 408, 409, 429 and 5xx.
   */
  private async read(answer: Dispatcher.ResponseData, call: OpenAIChatCall, responseHeaders: Record<string, string>): Promise<string> {
    const ok = answer.statusCode >= 200 && answer.statusCode < 300;
    let responseBody: string;
    try {
      responseBody = await answer.body.text();
    } catch (error) {
      throw this.readFailure(
        error,
        answer,
        responseHeaders,
        call,
        ok ? 'Failed to process successful response' : 'Failed to process error response',
      );
    }
    if (ok) return responseBody;
    let message = '';
    let data: unknown;
    if (responseBody.trim() !== '') {
      const parsed = parseJson(responseBody);
      if (parsed.ok && isErrorBody(parsed.value)) {
        message = parsed.value.error.message;
        data = parsed.value;
      }
    }
    throw new APICallError({
      message,
      url: this.endpoint.url,
      requestBodyValues: call.body,
      statusCode: answer.statusCode,
      responseHeaders,
      responseBody,
      ...(data !== undefined && { data }),
    });
  }

  private readFailure(
    error: unknown,
    answer: Dispatcher.ResponseData,
    responseHeaders: Record<string, string>,
    call: OpenAIChatCall,
    message: string,
  ): unknown {
    if (isAbortError(error)) return error;
    return new APICallError({
      message,
      cause: error,
      statusCode: answer.statusCode,
      url: this.endpoint.url,
      responseHeaders,
      requestBodyValues: call.body,
      ...(networkFailure(error) && { isRetryable: true }),
    });
  }

  /** The SDK's check of a whole answer against a tool choice that is not `auto`. */
  private checkToolChoice(
    choice: ToolChoice | undefined,
    tools: readonly ToolDefinition[] | undefined,
    calls: readonly ParsedToolCall[],
    finishReason: ModelAnswer['finishReason'],
  ): void {
    if (!tools || choice === undefined || choice === 'auto') return;
    const violated =
      choice === 'none'
        ? calls.length > 0
        : !calls.some((call) => choice === 'required' || call.toolName === (choice as { toolName: string }).toolName);
    if (violated) {
      throw new ToolChoiceViolationError({
        toolChoice: typeof choice === 'string' ? { type: choice } : choice,
        finishReason,
        provider: 'openai-chat',
        modelId: this.modelId,
        content: [],
      });
    }
  }
}

/** A tool call as its deltas built it. */
interface StreamedToolCall {
  id: string;
  index: number | undefined;
  sequence: number;
  name: string;
  arguments: string;
}

/**
 * A chat-completions stream read chunk by chunk into the SDK's parts: reasoning and text
 * deltas as they come, tool-call arguments gathered per call (each call whole at the end),
 * the finish reason and the usage.
 */
class ChunkState {
  finishReason: ModelAnswer['finishReason'] | undefined;
  usage: unknown;
  /** The turn's text and reasoning blocks, in order, as the SDK records them. */
  readonly pieces: ContentPiece[] = [];
  private active: 'reasoning' | 'text' | undefined;
  private readonly calls: StreamedToolCall[] = [];
  private readonly usedIds = new Set<string>();
  /** Deltas of a call whose name has not come yet, by index. */
  private readonly pending = new Map<number, { id: string | null; arguments: string }>();
  private readonly forwarded = new Set<number>();

  /** The parts one event's data gives; throws what the SDK's stream reports as an error. */
  take(data: string): ModelStreamPart[] {
    const parsed = parseJson(data);
    if (!parsed.ok) throw parsed.error;
    const value = parsed.value;
    if (!isChunk(value)) {
      // The SDK reports a host's error event by its error object.
      if (isErrorBody(value)) throw value.error;
      throw new TypeValidationError({ value, cause: 'not a chat completion chunk' });
    }
    if ('error' in value) throw value.error;
    if (value.usage != null) this.usage = value.usage;
    const choice = value.choices[0] as Json | undefined;
    if (choice?.finish_reason != null) this.finishReason = finishReasonOf(choice.finish_reason);
    const delta = choice?.delta as Json | null | undefined;
    if (delta == null) return [];
    const parts: ModelStreamPart[] = [];
    const reasoning = (delta.reasoning_content ?? delta.reasoning) as string | null | undefined;
    if (reasoning) this.piece(true, reasoning, parts);
    for (const piece of contentPieces(delta.content)) this.piece(piece.reasoning, piece.text, parts);
    const toolCalls = delta.tool_calls as Json[] | null | undefined;
    if (toolCalls != null && toolCalls.length > 0) {
      if (this.active === 'reasoning') this.active = undefined;
      for (const toolCall of toolCalls) this.toolCallDelta(toolCall, parts);
    }
    return parts;
  }

  private piece(reasoning: boolean, text: string, parts: ModelStreamPart[]): void {
    const kind = reasoning ? 'reasoning' : 'text';
    if (this.active !== kind) {
      this.active = kind;
      this.pieces.push({ reasoning, text: '' });
    }
    this.pieces[this.pieces.length - 1].text += text;
    parts.push({ type: reasoning ? 'reasoning-delta' : 'text-delta', text });
  }

  /** As the SDK's provider does: a call's deltas are held until its name is known. */
  private toolCallDelta(delta: Json, parts: ModelStreamPart[]): void {
    const index = delta.index as number | null | undefined;
    const fn = delta.function as { name?: string | null; arguments?: string | null };
    if (index == null || this.forwarded.has(index)) {
      this.track({ index: index ?? undefined, id: delta.id as string | null | undefined, name: fn.name, arguments: fn.arguments }, parts);
      return;
    }
    let pending = this.pending.get(index);
    if (!pending) {
      pending = { id: (delta.id as string | null | undefined) ?? null, arguments: '' };
      this.pending.set(index, pending);
    } else if (pending.id == null && delta.id != null) {
      pending.id = delta.id as string;
    }
    if (fn.arguments != null) pending.arguments += fn.arguments;
    if (fn.name != null) {
      this.track({ index, id: pending.id, name: fn.name, arguments: pending.arguments }, parts);
      this.pending.delete(index);
      this.forwarded.add(index);
    }
  }

  private track(
    delta: {
      index: number | undefined;
      id: string | null | undefined;
      name: string | null | undefined;
      arguments: string | null | undefined;
    },
    parts: ModelStreamPart[],
  ): void {
    const id = delta.id?.trim() ? delta.id : undefined;
    const name = delta.name?.trim() ? delta.name : undefined;
    const existing =
      (delta.index !== undefined ? this.calls.find((call) => call.index === delta.index) : undefined) ??
      (id !== undefined ? this.calls.find((call) => call.id === id) : undefined) ??
      (delta.index === undefined && name === undefined && this.calls.length === 1 ? this.calls[0] : undefined);
    if (existing) {
      if (delta.arguments != null) {
        existing.arguments += delta.arguments;
        parts.push({ type: 'tool-input-delta', delta: delta.arguments });
      }
      return;
    }
    if (typeof delta.name === 'string' && delta.name.trim() === '') return;
    if (name === undefined) throw new InvalidResponseDataError({ data: delta, message: `Expected 'function.name' to be a string.` });
    const callId = id !== undefined && !this.usedIds.has(id) ? id : newToolCallId();
    this.usedIds.add(callId);
    const call = { id: callId, index: delta.index, sequence: this.calls.length, name, arguments: delta.arguments ?? '' };
    this.calls.push(call);
    if (call.arguments.length > 0) parts.push({ type: 'tool-input-delta', delta: call.arguments });
  }

  /** Every call whole, in the order of their indexes, once the stream has ended. */
  finishToolCalls(): Array<{ id: string; name: string; arguments: string }> {
    for (const [index, pending] of this.pending) this.track({ index, id: pending.id, name: undefined, arguments: pending.arguments }, []);
    this.pending.clear();
    const calls = this.calls.every((call) => call.index !== undefined)
      ? [...this.calls].sort((a, b) => (a.index as number) - (b.index as number) || a.sequence - b.sequence)
      : this.calls;
    return calls.map(({ id, name, arguments: text }) => ({ id, name, arguments: text }));
  }
}
