import { createHash } from 'node:crypto';
import { countWords, type FakeAnswer, type FakeConversation, type FakeImage, type FakeUsage } from './behaviour';
import type { FakeStructuredRequest } from './structured';

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (block): block is { type: 'text'; text: string } => (block as Json)?.type === 'text' && typeof (block as Json).text === 'string',
    )
    .map((block) => block.text)
    .join(' ');
}

function blocksOf(message: Json | undefined): Json[] {
  return Array.isArray(message?.content) ? (message.content as Json[]) : [];
}

function anthropicImage(block: Json): FakeImage[] {
  const source = block?.type === 'image' ? (block.source as Json | undefined) : undefined;
  if (source?.type === 'url' && typeof source.url === 'string') return [{ source: 'url', url: source.url }];
  if (source?.type === 'base64' && typeof source.data === 'string') {
    return [{ source: 'base64', mediaType: String(source.media_type), data: source.data }];
  }
  return [];
}

/**
 * A structured request: the AI SDK's jsonTool mode offers a tool named `json` and forces
 * tool use (`any`, or that tool by name), the schema being its `input_schema`; native
 * structured output sends `output_config.format` (or the older `output_format`).
 */
function anthropicStructured(body: Json): FakeStructuredRequest | undefined {
  const choice = body.tool_choice as Json | undefined;
  const forced = choice?.type === 'any' || (choice?.type === 'tool' && choice.name === 'json');
  const jsonTool = Array.isArray(body.tools) ? (body.tools as Json[]).find((tool) => tool?.name === 'json') : undefined;
  if (forced && jsonTool) {
    return { mode: 'json_tool', schema: jsonTool.input_schema, ...(typeof jsonTool.strict === 'boolean' && { strict: jsonTool.strict }) };
  }
  const format = ((body.output_config as Json | undefined)?.format ?? body.output_format) as Json | undefined;
  return format?.type === 'json_schema' ? { mode: 'output_format', schema: format.schema } : undefined;
}

/** Reads a messages request body; `undefined` when it is not one (max_tokens is required there). */
export function anthropicConversation(body: Json): FakeConversation | undefined {
  if (!Array.isArray(body.messages)) return undefined;
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) return undefined;
  const messages = body.messages as Json[];
  const lastUser = [...messages].reverse().find((message) => message?.role === 'user');
  const stop = Array.isArray(body.stop_sequences) ? body.stop_sequences.filter((s): s is string => typeof s === 'string') : [];
  const structured = anthropicStructured(body);
  return {
    lastUserText: lastUser ? textOf(lastUser.content) : '',
    // Tool results come back as one user message holding a tool_result block per call.
    toolRounds: messages.filter((message) => message?.role === 'user' && blocksOf(message).some((block) => block?.type === 'tool_result'))
      .length,
    images: messages.flatMap((message) => blocksOf(message).flatMap(anthropicImage)),
    toolsAllowed: Array.isArray(body.tools) && body.tools.length > 0 && (body.tool_choice as Json | undefined)?.type !== 'none',
    promptWords: countWords(textOf(body.system)) + messages.reduce((sum, message) => sum + countWords(textOf(message?.content)), 0),
    maxTokens: body.max_tokens,
    stop,
    ...(structured && { structured }),
  };
}

export function anthropicStopReason(answer: FakeAnswer): 'end_turn' | 'stop_sequence' | 'max_tokens' | 'tool_use' {
  if (answer.finish === 'length') return 'max_tokens';
  if (answer.finish === 'tool_calls') return 'tool_use';
  return answer.finish === 'stop_sequence' ? 'stop_sequence' : 'end_turn';
}

/**
 * Anthropic counts cache reads and writes apart from `input_tokens` (the SDK adds them back), so
 * the fake's prompt total is split the same way.
 */
export function anthropicInputUsage(usage: FakeUsage): Json {
  return {
    input_tokens: Math.max(0, usage.promptTokens - usage.cachedTokens - usage.cacheWriteTokens),
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cachedTokens,
  };
}

export function anthropicOutputUsage(usage: FakeUsage): Json {
  return {
    output_tokens: usage.completionTokens,
    ...(usage.reasoningTokens > 0 && { output_tokens_details: { thinking_tokens: usage.reasoningTokens } }),
  };
}

/** Stands in for the opaque signature Anthropic attaches to thinking; stable for the same text. */
export function thinkingSignature(reasoning: string): string {
  return createHash('sha256').update(reasoning).digest('base64');
}

export function anthropicMessage(id: string, model: string, answer: FakeAnswer): Json {
  const reasoning = answer.reasoningFragments.join('');
  const text = answer.responseFragments.join('');
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(reasoning.length > 0 ? [{ type: 'thinking', thinking: reasoning, signature: thinkingSignature(reasoning) }] : []),
      ...(hasTextBlock(answer) ? [{ type: 'text', text }] : []),
      ...answer.toolCalls.map((call) => ({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: JSON.parse(call.argumentFragments.join('')),
      })),
    ],
    stop_reason: anthropicStopReason(answer),
    stop_sequence: answer.stopSequence ?? null,
    usage: { ...anthropicInputUsage(answer.usage), ...anthropicOutputUsage(answer.usage), service_tier: 'standard' },
  };
}

/** Claude answers a turn of only tool calls without a text block. */
export function hasTextBlock(answer: FakeAnswer): boolean {
  return answer.responseFragments.length > 0 || answer.toolCalls.length === 0;
}

export function anthropicEvent(type: string, data: Json): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

const ANTHROPIC_ERRORS: Record<number, { type: string; message: string }> = {
  400: { type: 'invalid_request_error', message: 'Invalid request.' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'The requested resource could not be found.' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit.' },
  500: { type: 'api_error', message: 'Internal server error' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

export function anthropicErrorType(status: number): string {
  return (ANTHROPIC_ERRORS[status] ?? (status >= 500 ? ANTHROPIC_ERRORS[500] : ANTHROPIC_ERRORS[400])).type;
}

export function anthropicError(status: number, message: string | undefined, requestId: string): Json {
  const known = ANTHROPIC_ERRORS[status] ?? (status >= 500 ? ANTHROPIC_ERRORS[500] : ANTHROPIC_ERRORS[400]);
  return { type: 'error', error: { type: known.type, message: message ?? known.message }, request_id: requestId };
}
