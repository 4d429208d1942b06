import { countWords, type FakeAnswer, type FakeConversation, type FakeImage, type FakePlannedToolCall, type FakeUsage } from './behaviour';
import type { FakeStructuredRequest } from './structured';

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => (part as Json)?.type === 'text' && typeof (part as Json).text === 'string')
    .map((part) => part.text)
    .join(' ');
}

function optionalCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function openAIImages(content: unknown): FakeImage[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: Json): FakeImage[] => {
    const url = part?.type === 'image_url' ? (part.image_url as Json | undefined)?.url : undefined;
    if (typeof url !== 'string') return [];
    const inline = DATA_URL.exec(url);
    return [inline ? { source: 'base64', mediaType: inline[1], data: inline[2] } : { source: 'url', url }];
  });
}

/** `response_format` json_schema (with its schema and strict flag) or json_object; undefined for text. */
function openAIStructured(responseFormat: unknown): FakeStructuredRequest | undefined {
  const format = responseFormat as Json | undefined;
  if (format?.type === 'json_object') return { mode: 'json_object' };
  if (format?.type !== 'json_schema') return undefined;
  const spec = (format.json_schema ?? {}) as Json;
  return { mode: 'json_schema', schema: spec.schema, ...(typeof spec.strict === 'boolean' && { strict: spec.strict }) };
}

/** Reads a chat-completions request body; `undefined` when it is not one. */
export function openAIConversation(body: Json): FakeConversation | undefined {
  if (!Array.isArray(body.messages)) return undefined;
  const messages = body.messages as Json[];
  const lastUser = [...messages].reverse().find((message) => message?.role === 'user');
  const stop =
    typeof body.stop === 'string'
      ? [body.stop]
      : Array.isArray(body.stop)
        ? body.stop.filter((s): s is string => typeof s === 'string')
        : [];
  const structured = openAIStructured(body.response_format);
  return {
    lastUserText: lastUser ? textOf(lastUser.content) : '',
    // Each tool result is a message of its own; a run of them answers one turn's calls.
    toolRounds: messages.filter((message, index) => message?.role === 'tool' && messages[index - 1]?.role !== 'tool').length,
    images: messages.flatMap((message) => openAIImages(message?.content)),
    toolsAllowed: Array.isArray(body.tools) && body.tools.length > 0 && body.tool_choice !== 'none',
    promptWords: messages.reduce((sum, message) => sum + countWords(textOf(message?.content)), 0),
    maxTokens: optionalCount(body.max_completion_tokens) ?? optionalCount(body.max_tokens),
    stop,
    ...(structured && { structured }),
  };
}

export function openAIFinishReason(answer: FakeAnswer): 'stop' | 'length' | 'tool_calls' {
  if (answer.finish === 'length' || answer.finish === 'tool_calls') return answer.finish;
  return 'stop';
}

/**
 * A tool call's streamed deltas, one per arguments piece: the first also names the call,
 * as OpenAI's first delta of a call does; `index` places the call among the turn's calls.
 */
export function openAIToolCallDeltas(call: FakePlannedToolCall, index: number): Json[] {
  return call.argumentFragments.map((fragment, position) => ({
    tool_calls: [
      position === 0
        ? { index, id: call.id, type: 'function', function: { name: call.name, arguments: fragment } }
        : { index, function: { arguments: fragment } },
    ],
  }));
}

export function openAIUsage(usage: FakeUsage): Json {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    // `cache_write_tokens` only when there are some: the field OpenAI's SDK reads (OpenAI-compatible hosts report none).
    prompt_tokens_details: {
      cached_tokens: usage.cachedTokens,
      audio_tokens: 0,
      ...(usage.cacheWriteTokens > 0 && { cache_write_tokens: usage.cacheWriteTokens }),
    },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export interface OpenAIIdentity {
  id: string;
  model: string;
  created: number;
}

export function openAICompletion(identity: OpenAIIdentity, answer: FakeAnswer): Json {
  const reasoning = answer.reasoningFragments.join('');
  const content = answer.responseFragments.join('');
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: content.length === 0 && answer.toolCalls.length > 0 ? null : content,
          ...(reasoning.length > 0 && { reasoning_content: reasoning }),
          ...(answer.toolCalls.length > 0 && {
            tool_calls: answer.toolCalls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.argumentFragments.join('') },
            })),
          }),
          refusal: null,
        },
        logprobs: null,
        finish_reason: openAIFinishReason(answer),
      },
    ],
    usage: openAIUsage(answer.usage),
  };
}

/** One `chat.completion.chunk`; `usage` is present (null) on every chunk when usage was asked for, as OpenAI does. */
export function openAIChunk(
  identity: OpenAIIdentity,
  choice: { delta: Json; finishReason?: string } | undefined,
  includeUsage: boolean,
  usage?: FakeUsage,
): Json {
  return {
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    system_fingerprint: 'fp_fake',
    choices: choice ? [{ index: 0, delta: choice.delta, logprobs: null, finish_reason: choice.finishReason ?? null }] : [],
    ...(includeUsage && { usage: usage ? openAIUsage(usage) : null }),
  };
}

const OPENAI_ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Forbidden.' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached. Please try again later.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request.' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later.' },
};

export function openAIError(status: number, message?: string): Json {
  const known = OPENAI_ERRORS[status] ?? (status >= 500 ? OPENAI_ERRORS[500] : OPENAI_ERRORS[400]);
  return { error: { message: message ?? known.message, type: known.type, param: null, code: known.code } };
}
