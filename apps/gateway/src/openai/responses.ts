import type { ConversationMessage, ConversationPart, ConversationToolChoice, UsageObject } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { Request } from 'express';
import { localeOf, type SseEncoding } from '../streaming/sse-relay';
import { exceptionOfEvent, type RunEvent } from './chat-completions';
import { labelsOf, responseFormatOf, targetOf, type OpenAiAnswer, type OpenAiAsk } from './openai-runs';
import { badParameter, bodyCheck, invalidParameter, RESPONSES_REQUEST_SCHEMA } from './openai-schemas';

type InputContent =
  string | Array<{ type: 'input_text' | 'output_text' | 'input_image' | 'refusal'; text?: string; refusal?: string; image_url?: string }>;

interface InputItem {
  type?: 'message' | 'function_call' | 'function_call_output';
  role?: 'system' | 'developer' | 'user' | 'assistant';
  content?: InputContent;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string;
}

/** The fields of a Responses request Waggle reads (the spec's decisions, OpenAI-compatible API › responses); others are ignored. */
export interface ResponsesBody {
  model: string;
  input: string | InputItem[];
  instructions?: string | null;
  stream?: boolean | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  previous_response_id?: string | null;
  tools?: Array<{ type: 'function'; name: string; description?: string | null; parameters?: Record<string, unknown> | null }>;
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; name: string };
  text?: {
    format?: { type: 'text' | 'json_object' | 'json_schema'; name?: string; schema?: Record<string, unknown>; strict?: boolean | null };
  } | null;
  user?: string;
  safety_identifier?: string;
  metadata?: Record<string, unknown> | null;
  inputs?: Record<string, unknown> | null;
  thread_id?: string | null;
}

export const checkResponsesBody = bodyCheck<ResponsesBody>(RESPONSES_REQUEST_SCHEMA);

function contentOf(content: InputContent | undefined, field: string): string | ConversationPart[] {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part, index): ConversationPart => {
    if (part.type === 'input_image') {
      if (part.image_url === undefined) throw invalidParameter(`${field}[${index}].image_url`, `${field}[${index}].image_url is required`);
      return { type: 'image', url: part.image_url };
    }
    const text = part.type === 'refusal' ? part.refusal : part.text;
    if (typeof text !== 'string') throw invalidParameter(`${field}[${index}].text`, `${field}[${index}].text is required`);
    return { type: 'text', text };
  });
}

/** Input items as a conversation: messages, and a function call with its output as an assistant's tool call and its result. */
export function inputMessages(input: ResponsesBody['input'], instructions: string | null | undefined): ConversationMessage[] {
  const messages: ConversationMessage[] = instructions ? [{ role: 'system', content: instructions }] : [];
  if (typeof input === 'string') return [...messages, { role: 'user', content: input }];
  input.forEach((item, index) => {
    const field = `input[${index}]`;
    if (item.type === 'function_call') {
      if (!item.call_id || !item.name) throw invalidParameter(field, `${field} needs call_id and name`);
      const call = { id: item.call_id, name: item.name, arguments: item.arguments ?? '{}' };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: '', tool_calls: [call] });
      return;
    }
    if (item.type === 'function_call_output') {
      if (!item.call_id) throw invalidParameter(`${field}.call_id`, `${field}.call_id is required`);
      messages.push({ role: 'tool', content: item.output ?? '', tool_call_id: item.call_id });
      return;
    }
    if (item.role === undefined) throw invalidParameter(`${field}.role`, `${field}.role is required`);
    const content = contentOf(item.content, `${field}.content`);
    messages.push({ role: item.role === 'developer' ? 'system' : item.role, content });
  });
  return messages;
}

function toolChoiceOf(choice: ResponsesBody['tool_choice']): ConversationToolChoice | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { name: choice.name };
}

/** A Responses request as a run asks it; it behaves as `store: false`, so nothing can continue a stored response. */
export function responsesAsk(body: ResponsesBody): OpenAiAsk {
  if (body.previous_response_id) throw badParameter('previous_response_id', { detail: 'openai_previous_response' });
  return {
    model: body.model,
    target: targetOf(body.model),
    messages: inputMessages(body.input, body.instructions),
    ...(body.tools && {
      tools: body.tools.map((tool) => ({
        name: tool.name,
        ...(tool.description && { description: tool.description }),
        parameters: tool.parameters ?? { type: 'object', properties: {} },
      })),
    }),
    toolChoice: toolChoiceOf(body.tool_choice),
    params: {
      ...(body.temperature != null && { temperature: body.temperature }),
      ...(body.top_p != null && { top_p: body.top_p }),
      ...(body.max_output_tokens != null && { max_tokens: body.max_output_tokens }),
    },
    responseFormat: responseFormatOf(body.text?.format, 'text.format'),
    ...labelsOf(body),
  };
}

const hexOf = (requestId: string) => requestId.replace(/^req_/, '');

function usageOf(usage: UsageObject) {
  return {
    input_tokens: usage.prompt_tokens.total_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens.cached_tokens },
    output_tokens: usage.completion_tokens.total_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens.reasoning_tokens },
    total_tokens: usage.total_tokens,
  };
}

type OutputItem =
  | {
      type: 'message';
      id: string;
      status: string;
      role: 'assistant';
      content: Array<{ type: 'output_text'; text: string; annotations: []; logprobs: [] }>;
    }
  | { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: string };

function messageItem(requestId: string, text: string, status = 'completed'): OutputItem {
  return {
    type: 'message',
    id: `msg_${hexOf(requestId)}`,
    status,
    role: 'assistant',
    content: status === 'completed' ? [{ type: 'output_text', text, annotations: [], logprobs: [] }] : [],
  };
}

function callItem(call: { id: string; name: string; arguments: string }, index: number, status = 'completed'): OutputItem {
  return { type: 'function_call', id: `fc_${index}_${call.id}`, call_id: call.id, name: call.name, arguments: call.arguments, status };
}

/** The response object, as `responses.create` answers it and as its stream's lifecycle events carry it. */
function responseObject(
  body: ResponsesBody,
  requestId: string,
  createdAt: number,
  state: { status: string; output: OutputItem[]; usage?: UsageObject; stopReason?: string; error?: { code: string; message: string } },
) {
  const incomplete = state.stopReason === 'max_tokens';
  return {
    id: `resp_${hexOf(requestId)}`,
    object: 'response',
    created_at: createdAt,
    status: incomplete && state.status === 'completed' ? 'incomplete' : state.status,
    model: body.model,
    output: state.output,
    usage: state.usage ? usageOf(state.usage) : null,
    error: state.error ?? null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    truncation: 'disabled',
    user: body.user ?? null,
  };
}

export function responseOf(answer: OpenAiAnswer, body: ResponsesBody, createdAt: number) {
  const output: OutputItem[] = [
    ...(answer.text !== '' || answer.toolCalls.length === 0 ? [messageItem(answer.requestId, answer.text)] : []),
    ...answer.toolCalls.map((call, index) => callItem(call, index)),
  ];
  return responseObject(body, answer.requestId, createdAt, {
    status: 'completed',
    output,
    usage: answer.usage,
    stopReason: answer.stopReason,
  });
}

/**
 * A run's events as the Responses stream (decisions): `event:` lines with `type` and
 * `sequence_number`, `response.created` and `response.in_progress` first, a message's
 * `output_item.added`, `content_part.added`, `output_text.delta`…, `output_text.done`,
 * `content_part.done`, `output_item.done`, a function call's item with its arguments, and
 * `response.completed` (or `response.failed`); no `[DONE]`.
 */
export function responseEvents(request: Request, requestId: string, body: ResponsesBody): SseEncoding {
  const createdAt = Math.floor(Date.now() / 1000);
  const output: OutputItem[] = [];
  let sequence = 0;
  let started = false;
  let text: string | undefined;
  const frame = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  const snapshot = (status: string, extra: { usage?: UsageObject; stopReason?: string; error?: { code: string; message: string } } = {}) =>
    responseObject(body, requestId, createdAt, { status, output: [...output], ...extra });
  const start = () => {
    if (started) return '';
    started = true;
    return (
      frame('response.created', { response: snapshot('in_progress') }) +
      frame('response.in_progress', { response: snapshot('in_progress') })
    );
  };
  const messageId = `msg_${hexOf(requestId)}`;
  const closeMessage = () => {
    if (text === undefined) return '';
    const done = messageItem(requestId, text);
    const outputIndex = output.length;
    output.push(done);
    const part = { type: 'output_text', text, annotations: [], logprobs: [] };
    const frames =
      frame('response.output_text.done', { item_id: messageId, output_index: outputIndex, content_index: 0, text, logprobs: [] }) +
      frame('response.content_part.done', { item_id: messageId, output_index: outputIndex, content_index: 0, part }) +
      frame('response.output_item.done', { output_index: outputIndex, item: done });
    text = undefined;
    return frames;
  };
  const failed = (exception: WaggleException) =>
    start() +
    closeMessage() +
    frame('response.failed', {
      response: snapshot('failed', { error: { code: exception.code, message: exception.messageIn(localeOf(request)) } }),
    });
  return {
    event: (raw) => {
      const event = raw as RunEvent;
      switch (event.type) {
        case 'response': {
          if (!event.response) return start();
          let frames = start();
          if (text === undefined) {
            text = '';
            const outputIndex = output.length;
            frames +=
              frame('response.output_item.added', { output_index: outputIndex, item: messageItem(requestId, '', 'in_progress') }) +
              frame('response.content_part.added', {
                item_id: messageId,
                output_index: outputIndex,
                content_index: 0,
                part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
              });
          }
          text += event.response;
          return (
            frames +
            frame('response.output_text.delta', {
              item_id: messageId,
              output_index: output.length,
              content_index: 0,
              delta: event.response,
              logprobs: [],
            })
          );
        }
        case 'tool_call': {
          const frames = start() + closeMessage();
          const outputIndex = output.length;
          const item = callItem(event.tool_call, outputIndex);
          output.push(item);
          return (
            frames +
            frame('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } }) +
            frame('response.function_call_arguments.delta', {
              item_id: item.id,
              output_index: outputIndex,
              delta: event.tool_call.arguments,
            }) +
            frame('response.function_call_arguments.done', {
              item_id: item.id,
              output_index: outputIndex,
              arguments: event.tool_call.arguments,
            }) +
            frame('response.output_item.done', { output_index: outputIndex, item })
          );
        }
        case 'usage': {
          const frames = start() + closeMessage();
          const response = snapshot('completed', { usage: event.usage, stopReason: event.stop_reason });
          return frames + frame(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
        }
        case 'error':
          return failed(exceptionOfEvent(event));
        default:
          return start();
      }
    },
    failure: (error) => failed(error instanceof WaggleException ? error : new WaggleException('internal_server_error')),
    done: '',
  };
}
