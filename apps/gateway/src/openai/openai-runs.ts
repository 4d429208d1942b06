import { Inject, Injectable } from '@nestjs/common';
import {
  AgentPatterns,
  conversationText,
  flatMetadataProblem,
  InvocationPatterns,
  responseSchemaProblem,
  send,
  type AgentMessageInput,
  type AgentRunRequest,
  type ConversationMessage,
  type ConversationParams,
  type ConversationTool,
  type ConversationToolCall,
  type ConversationToolChoice,
  type FlatMetadata,
  type PromptRunRequest,
  type ResponseFormat,
  type UsageObject,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, NatsRpcClient, requestContext } from '@waggle/platform';
import type { Response } from 'express';
import type { Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import type { GatewayEnv } from '../config/gateway.env';
import { relayRunStream, type SseEncoding } from '../streaming/sse-relay';
import { badParameter, invalidParameter } from './openai-schemas';

/** decisions: the thread of an agent conversation travels in this header, both ways. */
export const THREAD_HEADER = 'x-waggle-thread-id';

/** What a model id names (decisions: `prompt/<deployment>/<variant>`, `agent/<id or unique name>`). */
export type OpenAiTarget = { kind: 'prompt'; deployment: string; variant: string } | { kind: 'agent'; agent: string };

export function modelNotFound(model: string): WaggleException {
  return new WaggleException('resource_not_found', {
    status: 404,
    detail: 'openai_model_not_found',
    params: { model: model.slice(0, 300) },
  });
}

export function targetOf(model: string): OpenAiTarget {
  const [kind, first, second, ...rest] = model.split('/');
  if (kind === 'prompt' && first && second && rest.length === 0) return { kind: 'prompt', deployment: first, variant: second };
  if (kind === 'agent' && first && second === undefined) return { kind: 'agent', agent: first };
  throw modelNotFound(model);
}

/** One request of either endpoint, read into what a run needs: the same for Chat Completions and Responses. */
export interface OpenAiAsk {
  model: string;
  target: OpenAiTarget;
  messages: ConversationMessage[];
  tools?: ConversationTool[];
  toolChoice?: ConversationToolChoice;
  params: ConversationParams;
  responseFormat?: ResponseFormat;
  /** The prompt template's variables: the body's `inputs`, else its `metadata`. */
  inputs?: Record<string, unknown>;
  metadata?: FlatMetadata;
  user?: string;
  threadId?: string;
}

/** The answer of a run, whatever ran it, as both endpoints shape it. */
export interface OpenAiAnswer {
  requestId: string;
  text: string;
  toolCalls: ConversationToolCall[];
  usage: UsageObject;
  /** The run's stop reason (`completed`, `max_tokens`, `tool_calls`, …). */
  stopReason: string;
  threadId?: string;
}

/** The labels every run carries, read from the parts of an OpenAI body that name them. */
export function labelsOf(body: {
  metadata?: Record<string, unknown> | null;
  user?: string;
  safety_identifier?: string;
  inputs?: Record<string, unknown> | null;
  thread_id?: string | null;
}): Pick<OpenAiAsk, 'metadata' | 'user' | 'inputs' | 'threadId'> {
  const metadata = body.metadata ?? undefined;
  if (metadata) {
    const problem = flatMetadataProblem(metadata);
    if (problem) throw badParameter('metadata', problem);
  }
  const user = body.user ?? body.safety_identifier;
  const threadFromMetadata = typeof metadata?.thread_id === 'string' ? metadata.thread_id : undefined;
  return {
    ...(metadata && { metadata: metadata as FlatMetadata }),
    ...(user !== undefined && { user }),
    inputs: body.inputs ?? metadata ?? undefined,
    threadId: body.thread_id ?? threadFromMetadata,
  };
}

/** A caller's `json_object` or `json_schema` response format as a run's (json_object: any JSON object). */
export function responseFormatOf(
  format: { type: string; name?: string; schema?: Record<string, unknown>; strict?: boolean | null } | undefined,
  param: string,
): ResponseFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_schema', name: 'json_object', schema: { type: 'object' }, strict: false };
  const schema = format.schema ?? { type: 'object' };
  const problem = responseSchemaProblem(schema);
  if (problem) throw badParameter(`${param}.schema`, problem);
  return { type: 'json_schema', ...(format.name && { name: format.name }), schema, strict: format.strict ?? false };
}

/**
 * Runs an OpenAI request through the same invocation patterns as the native routes (decisions:
 * one run path): a prompt deployment's variant with the caller's conversation, or an agent's
 * turn. Everything the native routes do applies unchanged: meter, caps, Idempotency-Key (the
 * guards ran), fallbacks, structured output, cancellation on disconnect, the ledger, traces.
 */
@Injectable()
export class OpenAiRuns {
  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: GatewayEnv,
  ) {}

  /** The run's request id: the one every answer of the surface carries as `x-request-id`. */
  requestId(): string {
    return requestContext.get()?.requestId ?? '';
  }

  async answer(ask: OpenAiAsk, request: AuthenticatedRequest): Promise<OpenAiAnswer> {
    const requestId = this.requestId();
    const timeout = { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS };
    if (ask.target.kind === 'prompt') {
      const answer = await send(this.rpc, InvocationPatterns.invokePrompt, this.promptRun(ask, request, requestId), timeout);
      return {
        requestId,
        text: answer.response,
        toolCalls: answer.tool_calls ?? [],
        usage: answer.usage,
        stopReason: answer.stop_reason,
      };
    }
    const answer = await send(this.rpc, AgentPatterns.invokeAgent, this.agentRun(ask, request, requestId), timeout);
    return {
      requestId,
      text: answer.response,
      toolCalls: [],
      usage: answer.usage,
      stopReason: 'completed',
      ...(answer.thread_id !== undefined && { threadId: answer.thread_id }),
    };
  }

  /** The run's events relayed in the endpoint's framing; a client that leaves cancels the run, as on the native routes. */
  stream(ask: OpenAiAsk, request: AuthenticatedRequest, response: Response, encoding: SseEncoding): Promise<void> {
    const requestId = this.requestId();
    const timeout = { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS };
    let start: (keepEventsMs: number | undefined) => Observable<unknown>;
    if (ask.target.kind === 'prompt') {
      const run = this.promptRun(ask, request, requestId);
      start = (keepEventsMs) => send(this.rpc, InvocationPatterns.streamPrompt, { ...run, keep_events_ms: keepEventsMs }, timeout);
    } else {
      const run = this.agentRun(ask, request, requestId);
      if (run.thread_id !== undefined) response.setHeader(THREAD_HEADER, run.thread_id);
      start = (keepEventsMs) => send(this.rpc, AgentPatterns.streamAgent, { ...run, keep_events_ms: keepEventsMs }, timeout);
    }
    return relayRunStream(this.rpc, request, response, requestId, false, start, encoding);
  }

  private promptRun(ask: OpenAiAsk, request: AuthenticatedRequest, requestId: string): PromptRunRequest {
    const target = ask.target as Extract<OpenAiTarget, { kind: 'prompt' }>;
    return {
      workspace_id: request.auth.workspace_id,
      request_id: requestId,
      surface: 'openai',
      deployment: target.deployment,
      variant: target.variant,
      inputs: ask.inputs,
      metadata: ask.metadata,
      user: ask.user,
      conversation: {
        messages: ask.messages,
        params: ask.params,
        ...(ask.tools && ask.tools.length > 0 && { tools: ask.tools, tool_choice: ask.toolChoice }),
        ...(ask.responseFormat && { response_format: ask.responseFormat }),
      },
    };
  }

  /**
   * An agent's turn (the spec's decisions, OpenAI-compatible API › chat completions, agents): it runs its own tools, so caller
   * tools are refused. With a thread only the last user message is sent (the thread holds the
   * rest); without one the earlier messages are the history.
   */
  private agentRun(ask: OpenAiAsk, request: AuthenticatedRequest, requestId: string): AgentRunRequest {
    if (ask.tools && ask.tools.length > 0) throw badParameter('tools', { detail: 'openai_agent_tools' });
    const threadHeader = request.headers[THREAD_HEADER];
    const threadId = (typeof threadHeader === 'string' && threadHeader.length > 0 ? threadHeader : undefined) ?? ask.threadId;
    if (threadId !== undefined && threadId.length > 256)
      throw invalidParameter(THREAD_HEADER, `${THREAD_HEADER} is longer than 256 characters`);
    const last = ask.messages.at(-1);
    if (!last || last.role !== 'user') throw badParameter('messages', { detail: 'openai_user_message_missing' });
    const images = typeof last.content === 'string' ? [] : last.content.flatMap((part) => (part.type === 'image' ? [part.url] : []));
    const history: AgentMessageInput[] =
      threadId !== undefined
        ? []
        : ask.messages
            .slice(0, -1)
            .flatMap((message) =>
              message.role === 'tool' || (message.role === 'assistant' && conversationText(message.content) === '')
                ? []
                : [{ role: message.role, content: conversationText(message.content) }],
            );
    return {
      workspace_id: request.auth.workspace_id,
      request_id: requestId,
      surface: 'openai',
      agent: (ask.target as Extract<OpenAiTarget, { kind: 'agent' }>).agent,
      message: conversationText(last.content),
      ...(threadId !== undefined && { thread_id: threadId }),
      ...(history.length > 0 && { messages: history }),
      ...(images.length > 0 && { image_urls: images }),
      metadata: ask.metadata,
      user: ask.user,
    };
  }
}
