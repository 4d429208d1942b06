import { IsArray, IsIn, IsObject, IsOptional } from 'class-validator';
import type { ResponseFormat } from './response-format';

/**
 * Where a run was asked for: absent on the native routes; `openai` on the OpenAI-compatible
 * surface (the spec's decisions, OpenAI-compatible API); `mcp` for a tool call to Waggle's
 * MCP server (decisions, MCP). Recorded in the ledger.
 */
export const RUN_SURFACES = ['openai', 'mcp'] as const;
export type RunSurface = (typeof RUN_SURFACES)[number];

/** A tool call of a conversation, as a model made it: its arguments are the JSON text the model wrote. */
export interface ConversationToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ConversationPart = { type: 'text'; text: string } | { type: 'image'; url: string };

/**
 * One message a caller sends with a run on the OpenAI-compatible surface, provider-neutral:
 * the gateway reads OpenAI's shapes (Chat Completions messages, Responses input items) into it,
 * the invocation service writes it out as the model call's messages.
 */
export interface ConversationMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | ConversationPart[];
  /** An assistant message's tool calls. */
  tool_calls?: ConversationToolCall[];
  /** A tool message: the call it answers. */
  tool_call_id?: string;
}

/** A message's text: its text parts joined (images carry none). */
export function conversationText(content: ConversationMessage['content']): string {
  return typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A function the caller offers the model; the caller runs it and sends the result back. */
export interface ConversationTool {
  name: string;
  description?: string;
  /** The JSON Schema of its arguments object. */
  parameters: Record<string, unknown>;
}

export type ConversationToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** The caller's sampling parameters: each overrides the deployment's own. */
export interface ConversationParams {
  temperature?: number;
  top_p?: number;
  stop?: string[];
  seed?: number;
  max_tokens?: number;
}

/**
 * What an OpenAI client adds to a prompt deployment's run: its messages (after the template's),
 * its tools, its parameters and its response format. Read and checked by the gateway; the
 * service only checks that it is an object of this shape's parts.
 */
export class PromptConversation {
  @IsArray()
  messages!: ConversationMessage[];

  @IsOptional()
  @IsArray()
  tools?: ConversationTool[];

  @IsOptional()
  tool_choice?: ConversationToolChoice;

  @IsOptional()
  @IsObject()
  params?: ConversationParams;

  @IsOptional()
  @IsObject()
  response_format?: ResponseFormat;
}

/** The surface field of a run request. */
export function IsRunSurface(): PropertyDecorator {
  return (target, property) => {
    IsOptional()(target, property);
    IsIn(RUN_SURFACES)(target, property);
  };
}
