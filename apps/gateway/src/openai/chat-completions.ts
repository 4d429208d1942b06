import type {
  AgentStreamEvent,
  ConversationMessage,
  ConversationPart,
  ConversationToolChoice,
  PromptStreamEvent,
  UsageObject,
} from '@waggle/contracts';
import { WaggleException, type StreamErrorEvent } from '@waggle/errors';
import type { Request } from 'express';
import { localeOf, SSE_DONE, type SseEncoding } from '../streaming/sse-relay';
import { toOpenAiError } from './openai-errors';
import { labelsOf, responseFormatOf, targetOf, type OpenAiAnswer, type OpenAiAsk } from './openai-runs';
import { badParameter, bodyCheck, CHAT_COMPLETION_REQUEST_SCHEMA, invalidParameter } from './openai-schemas';

type ChatContent =
  string | null | Array<{ type: 'text' | 'image_url' | 'refusal'; text?: string; refusal?: string; image_url?: { url: string } }>;

export interface ChatMessageBody {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: ChatContent;
  tool_calls?: Array<{ id: string; type?: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** The fields of a Chat Completions request Waggle reads (decisions); others are ignored. */
export interface ChatCompletionBody {
  model: string;
  messages: ChatMessageBody[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  n?: number | null;
  logprobs?: boolean | null;
  audio?: unknown;
  modalities?: unknown;
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown> } }>;
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
  response_format?: {
    type: 'text' | 'json_object' | 'json_schema';
    json_schema?: { name: string; schema?: Record<string, unknown>; strict?: boolean | null };
  };
  user?: string;
  safety_identifier?: string;
  metadata?: Record<string, unknown> | null;
  inputs?: Record<string, unknown> | null;
  thread_id?: string | null;
}

export const checkChatCompletionBody = bodyCheck<ChatCompletionBody>(CHAT_COMPLETION_REQUEST_SCHEMA);

/** What Waggle cannot give is a 400 naming the parameter, never dropped (the spec's decisions, OpenAI-compatible API › refused). */
function refuseUnsupported(body: ChatCompletionBody): void {
  const refused = (param: string) => badParameter(param, { detail: 'openai_parameter_unsupported', params: { param } });
  if (body.n !== undefined && body.n !== null && body.n > 1) throw refused('n');
  if (body.logprobs === true) throw refused('logprobs');
  if (body.audio !== undefined && body.audio !== null) throw refused('audio');
  const modalities = body.modalities;
  if (modalities !== undefined && modalities !== null && !(Array.isArray(modalities) && modalities.every((item) => item === 'text')))
    throw refused('modalities');
}

function contentOf(content: ChatContent | undefined, field: string): string | ConversationPart[] {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part, index): ConversationPart => {
    if (part.type === 'image_url') {
      if (!part.image_url) throw invalidParameter(`${field}[${index}].image_url`, `${field}[${index}].image_url is required`);
      return { type: 'image', url: part.image_url.url };
    }
    const text = part.type === 'refusal' ? part.refusal : part.text;
    if (typeof text !== 'string') throw invalidParameter(`${field}[${index}].${part.type}`, `${field}[${index}].${part.type} is required`);
    return { type: 'text', text };
  });
}

export function chatMessages(messages: ChatMessageBody[]): ConversationMessage[] {
  return messages.map((message, index): ConversationMessage => {
    const field = `messages[${index}]`;
    const content = contentOf(message.content, `${field}.content`);
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content };
      case 'user':
        return { role: 'user', content };
      case 'assistant':
        return {
          role: 'assistant',
          content,
          ...(message.tool_calls?.length && {
            tool_calls: message.tool_calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
          }),
        };
      case 'tool':
        if (message.tool_call_id === undefined) throw invalidParameter(`${field}.tool_call_id`, `${field}.tool_call_id is required`);
        return { role: 'tool', content, tool_call_id: message.tool_call_id };
    }
  });
}

function toolChoiceOf(choice: ChatCompletionBody['tool_choice']): ConversationToolChoice | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { name: choice.function.name };
}

/** A Chat Completions request as a run asks it (the spec's decisions, OpenAI-compatible API › chat completions). */
export function chatAsk(body: ChatCompletionBody): OpenAiAsk {
  refuseUnsupported(body);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const stop = body.stop === null || body.stop === undefined ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
  return {
    model: body.model,
    target: targetOf(body.model),
    messages: chatMessages(body.messages),
    ...(body.tools && {
      tools: body.tools.map(({ function: fn }) => ({
        name: fn.name,
        ...(fn.description !== undefined && { description: fn.description }),
        parameters: fn.parameters ?? { type: 'object', properties: {} },
      })),
    }),
    toolChoice: toolChoiceOf(body.tool_choice),
    params: {
      ...(body.temperature != null && { temperature: body.temperature }),
      ...(body.top_p != null && { top_p: body.top_p }),
      ...(stop && { stop }),
      ...(body.seed != null && { seed: body.seed }),
      ...(maxTokens !== undefined && { max_tokens: maxTokens }),
    },
    responseFormat: responseFormatOf(
      body.response_format && { type: body.response_format.type, ...body.response_format.json_schema },
      'response_format.json_schema',
    ),
    ...labelsOf(body),
  };
}

/** A run's stop reason as OpenAI's `finish_reason`. */
export function finishReasonOf(stopReason: string): 'stop' | 'length' | 'tool_calls' | 'content_filter' {
  if (stopReason === 'max_tokens') return 'length';
  if (stopReason === 'tool_calls') return 'tool_calls';
  if (stopReason === 'content_filter') return 'content_filter';
  return 'stop';
}

export function chatUsageOf(usage: UsageObject) {
  return {
    prompt_tokens: usage.prompt_tokens.total_tokens,
    completion_tokens: usage.completion_tokens.total_tokens,
    total_tokens: usage.total_tokens,
    prompt_tokens_details: { cached_tokens: usage.prompt_tokens.cached_tokens },
    completion_tokens_details: { reasoning_tokens: usage.completion_tokens.reasoning_tokens },
  };
}

/** The run's id as a completion's: one id for the answer and for every chunk of its stream. */
export function completionId(requestId: string): string {
  return `chatcmpl-${requestId.replace(/^req_/, '')}`;
}

export function chatCompletionOf(answer: OpenAiAnswer, model: string, created: number) {
  const toolCalls = answer.toolCalls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: completionId(answer.requestId),
    object: 'chat.completion',
    created,
    model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text === '' && toolCalls.length > 0 ? null : answer.text,
          refusal: null,
          ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: finishReasonOf(answer.stopReason),
      },
    ],
    usage: chatUsageOf(answer.usage),
  };
}

/** A run's stream event, as the services send them (prompt and agent alike). */
export type RunEvent = PromptStreamEvent | AgentStreamEvent;

/** A failure as the frame OpenAI's streams end with: `data: {"error": {...}}` (the SDK raises it). */
export function errorFrameOf(request: Request, error: unknown): string {
  const exception = error instanceof WaggleException ? error : new WaggleException('internal_server_error');
  return `data: ${JSON.stringify(toOpenAiError(exception, localeOf(request), request).body)}\n\n`;
}

/** A service's error event (a provider failure mid-stream) as the exception it carries across processes. */
export function exceptionOfEvent(event: StreamErrorEvent): WaggleException {
  return (
    WaggleException.fromWire(event.failure) ??
    WaggleException.fromWire({ error_code: event.error_code, status: event.status_code }) ??
    new WaggleException('provider_error')
  );
}

/**
 * A run's events as `chat.completion.chunk`s (the spec's decisions, OpenAI-compatible API › streaming): one id and `created`; the
 * first delta carries the role; tool calls each with their `index`; the chunk with
 * `finish_reason` ends the choice; with `include_usage`, every chunk has `usage: null` and one
 * last chunk has `choices: []` and the totals; then `[DONE]`. An agent's own tool calls are
 * its business: they are not sent.
 */
export function chatChunks(request: Request, requestId: string, model: string, includeUsage: boolean): SseEncoding {
  const id = completionId(requestId);
  const created = Math.floor(Date.now() / 1000);
  let roleSent = false;
  let toolIndex = 0;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => {
    const withRole = roleSent ? delta : { role: 'assistant', ...delta };
    roleSent = true;
    const data = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: null,
      choices: [{ index: 0, delta: withRole, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage && { usage: null }),
    };
    return `data: ${JSON.stringify(data)}\n\n`;
  };
  return {
    event: (raw) => {
      const event = raw as RunEvent;
      switch (event.type) {
        case 'response':
          return event.response ? chunk({ content: event.response }) : '';
        case 'tool_call': {
          const call = event.tool_call;
          return chunk({
            tool_calls: [{ index: toolIndex++, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
          });
        }
        case 'usage': {
          const last = chunk({}, finishReasonOf(event.stop_reason ?? 'completed'));
          if (!includeUsage) return last;
          const totals = {
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            system_fingerprint: null,
            choices: [],
            usage: chatUsageOf(event.usage),
          };
          return `${last}data: ${JSON.stringify(totals)}\n\n`;
        }
        case 'error':
          return errorFrameOf(request, exceptionOfEvent(event));
        default:
          // Reasoning and an agent's own tool calls are not part of a chat completion.
          return '';
      }
    },
    failure: (error) => errorFrameOf(request, error),
    done: SSE_DONE,
  };
}
