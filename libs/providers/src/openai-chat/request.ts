import type { AssistantModelMessage, ToolModelMessage, UserModelMessage } from 'ai';
import type { JsonSchemaResponseFormat, PromptMessage, PromptParams, ToolChoice, ToolDefinition } from '../types';

type Json = Record<string, unknown>;

/** What a chat-completions request is built from: the call as the provider layer prepared it. */
export interface ChatRequestInput {
  providerModelId: string;
  messages: PromptMessage[];
  params: PromptParams;
  /** The response format, when the model holds it natively (D42); otherwise it is in the messages. */
  format: JsonSchemaResponseFormat | undefined;
  tools: readonly ToolDefinition[] | undefined;
  toolChoice: ToolChoice | undefined;
}

/** Any message or part with provider options: the AI SDK would pass them on, so it makes such calls. */
function hasProviderOptions(value: object): boolean {
  return (value as { providerOptions?: unknown }).providerOptions !== undefined;
}

function userMessage(message: UserModelMessage): Json | undefined {
  if (typeof message.content === 'string') return { role: 'user', content: message.content };
  const parts: Json[] = [];
  for (const part of message.content) {
    if (hasProviderOptions(part)) return undefined;
    if (part.type === 'text') {
      // Empty text parts are dropped, as the SDK drops them.
      if (part.text !== '') parts.push({ type: 'text', text: part.text });
    } else if (
      part.type === 'image' &&
      part.image instanceof URL &&
      /^https?:$/.test(part.image.protocol) &&
      part.mediaType === undefined
    ) {
      // An http(s) image is passed by URL (the hosts fetch it); inline data goes the SDK's way.
      parts.push({ type: 'image_url', image_url: { url: part.image.toString() } });
    } else {
      return undefined;
    }
  }
  if (parts.length === 1 && parts[0].type === 'text') return { role: 'user', content: parts[0].text };
  return { role: 'user', content: parts };
}

function assistantMessage(message: AssistantModelMessage, pending: Set<string>): Json | undefined {
  if (typeof message.content === 'string') return { role: 'assistant', content: message.content };
  let text = '';
  let reasoning = '';
  const toolCalls: Json[] = [];
  for (const part of message.content) {
    if (hasProviderOptions(part)) return undefined;
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else if (part.type === 'tool-call' && !part.providerExecuted) {
      pending.add(part.toolCallId);
      toolCalls.push({ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: JSON.stringify(part.input) } });
    } else return undefined;
  }
  return {
    role: 'assistant',
    content: toolCalls.length > 0 ? text || null : text,
    ...(reasoning.length > 0 && { reasoning_content: reasoning }),
    ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
  };
}

function toolMessages(message: ToolModelMessage, pending: Set<string>): Json[] | undefined {
  const messages: Json[] = [];
  for (const part of message.content) {
    if (part.type !== 'tool-result' || hasProviderOptions(part)) return undefined;
    const { output } = part;
    let content: string;
    if (output.type === 'text' || output.type === 'error-text') content = output.value;
    else if (output.type === 'json' || output.type === 'error-json') content = JSON.stringify(output.value);
    else return undefined;
    pending.delete(part.toolCallId);
    messages.push({ role: 'tool', tool_call_id: part.toolCallId, content });
  }
  return messages;
}

/**
 * The conversation in the chat-completions shape, exactly as the AI SDK's OpenAI-compatible
 * provider writes it, or undefined for anything the lean client leaves to the SDK: provider
 * options, inline images and files, tool results of other kinds, an empty conversation, and a
 * tool call left without its result (which the SDK refuses with its own error).
 */
export function chatMessages(prompt: readonly PromptMessage[]): Json[] | undefined {
  if (prompt.length === 0) return undefined;
  const messages: Json[] = [];
  /** Tool calls not answered yet: a user or system message must not come before their results. */
  const pending = new Set<string>();
  for (const message of prompt) {
    if (hasProviderOptions(message)) return undefined;
    let converted: Json | Json[] | undefined;
    switch (message.role) {
      case 'system':
        converted = { role: 'system', content: message.content };
        break;
      case 'user':
        converted = userMessage(message);
        break;
      case 'assistant':
        converted = assistantMessage(message, pending);
        break;
      case 'tool':
        converted = toolMessages(message, pending);
        break;
    }
    if (converted === undefined) return undefined;
    if ((message.role === 'user' || message.role === 'system') && pending.size > 0) return undefined;
    if (Array.isArray(converted)) messages.push(...converted);
    else messages.push(converted);
  }
  return pending.size > 0 ? undefined : messages;
}

function toolChoiceOf(choice: ToolChoice | undefined): unknown {
  if (choice === undefined) return 'auto';
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.toolName } };
}

/**
 * The request body of one chat-completions call, the one the AI SDK's OpenAI-compatible
 * provider sends for the same call (keys left undefined are not written), or undefined when
 * the conversation is one the lean client leaves to the SDK (see chatMessages).
 */
export function chatRequestBody(input: ChatRequestInput, stream: boolean): Json | undefined {
  const messages = chatMessages(input.messages);
  if (!messages) return undefined;
  const { params, format, tools } = input;
  return {
    model: input.providerModelId,
    max_tokens: params.maxOutputTokens,
    temperature: params.temperature,
    top_p: params.topP,
    ...(format && {
      response_format: {
        type: 'json_schema',
        // Strict only when the format says so: strict mode refuses many ordinary schemas (D42).
        json_schema: { schema: format.schema, strict: format.strict ?? false, name: format.name ?? 'response' },
      },
    }),
    stop: params.stop !== undefined && params.stop.length > 0 ? params.stop : undefined,
    seed: params.seed,
    reasoning_effort: params.reasoningEffort,
    messages,
    ...(tools && {
      tools: tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      })),
      tool_choice: toolChoiceOf(input.toolChoice),
    }),
    ...(stream && { stream: true, stream_options: { include_usage: true } }),
  };
}
