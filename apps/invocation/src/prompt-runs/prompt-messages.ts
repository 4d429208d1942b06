import { conversationText, type ConversationMessage } from '@waggle/contracts';
import { WaggleException, type ErrorDetail } from '@waggle/errors';
import type { PromptMessage as ModelMessage } from '@waggle/providers';
import type { StoredPromptMessage } from '../prompts/prompt-definition';
import { renderTemplate } from '../prompts/prompt-template';

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ImagePart {
  type: 'image';
  image: URL;
}

/** The model messages of one run, in the AI SDK's ModelMessage shape. */
export type RunMessage =
  | { role: 'system'; content: string }
  | { role: 'assistant'; content: string }
  | { role: 'user'; content: string | Array<TextPart | ImagePart> };

/**
 * Image URLs from the inputs marked as images. A missing, null or empty value sends no
 * image; anything else must be an http(s) URL.
 */
export function imageUrls(imageInputs: string[], inputs: Record<string, unknown>): URL[] {
  const urls: URL[] = [];
  for (const name of imageInputs) {
    const value = inputs[name];
    if (value === undefined || value === null || value === '') continue;
    const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
    if (!url || !['http:', 'https:'].includes(url.protocol)) {
      throw new WaggleException('validation_error', {
        details: [{ field: `inputs.${name}`, messages: [`inputs.${name} must be an http(s) image URL`] }],
      });
    }
    urls.push(url);
  }
  return urls;
}

/** Renders every template with the inputs; images join the last user message. */
export function renderMessages(messages: StoredPromptMessage[], inputs: Record<string, unknown>, images: URL[]): RunMessage[] {
  const rendered: RunMessage[] = messages.map(({ role, content }) => ({ role, content: renderTemplate(content, inputs) }));
  if (images.length === 0) return rendered;
  let lastUser = -1;
  rendered.forEach((message, index) => {
    if (message.role === 'user') lastUser = index;
  });
  const imageParts: ImagePart[] = images.map((image) => ({ type: 'image', image }));
  if (lastUser === -1) return [...rendered, { role: 'user', content: imageParts }];
  const text = rendered[lastUser].content as string;
  rendered[lastUser] = { role: 'user', content: [{ type: 'text', text }, ...imageParts] };
  return rendered;
}

/** The text of the last user message, for the ledger. */
export function lastUserText(messages: readonly ModelMessage[]): string | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    return message.content
      .map((part) => (part.type === 'text' ? part.text : part.type === 'image' ? `[image ${imageLabel(part.image)}]` : `[${part.type}]`))
      .join(' ');
  }
  return null;
}

/** An image as the ledger names it: its URL, or only the media type of inline data (never the bytes). */
function imageLabel(image: unknown): string {
  if (!(image instanceof URL)) return 'data';
  return image.protocol === 'data:' ? image.href.slice(0, image.href.search(/[;,]/)) : image.toString();
}

function invalid(field: string, problem: ErrorDetail): WaggleException {
  return new WaggleException('validation_error', { status: 400, ...problem, details: [{ field, messages: [problem] }] });
}

/** Arguments as the model wrote them; the provider call takes the parsed value, or the raw text when it is not JSON. */
function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** An image part's URL: http(s), or a `data:image/…` URL (what OpenAI clients send for local images). */
function imageUrl(url: string, field: string): URL {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const allowed =
    parsed &&
    (parsed.protocol === 'https:' || parsed.protocol === 'http:' || (parsed.protocol === 'data:' && url.startsWith('data:image/')));
  if (!allowed)
    throw invalid(field, { detail: 'openai_message_invalid', params: { reason: `${field} must be an http(s) or data:image URL` } });
  return parsed;
}

/**
 * A caller's conversation (the OpenAI-compatible surface) as the model call's messages, in the AI
 * SDK's shape: images as URL parts, an assistant's tool calls as tool-call parts, a tool message
 * as the result of the call it names (which an earlier assistant message must have made).
 */
export function conversationMessages(messages: readonly ConversationMessage[]): ModelMessage[] {
  const callNames = new Map<string, string>();
  return messages.map((message, index): ModelMessage => {
    const field = `messages[${index}]`;
    switch (message.role) {
      case 'system':
        return { role: 'system', content: conversationText(message.content) };
      case 'user':
        return {
          role: 'user',
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((part, partIndex) =>
                  part.type === 'text'
                    ? { type: 'text' as const, text: part.text }
                    : { type: 'image' as const, image: imageUrl(part.url, `${field}.content[${partIndex}].image_url.url`) },
                ),
        };
      case 'assistant': {
        const text = conversationText(message.content);
        const calls = message.tool_calls ?? [];
        for (const call of calls) callNames.set(call.id, call.name);
        if (calls.length === 0) return { role: 'assistant', content: text };
        return {
          role: 'assistant',
          content: [
            ...(text ? [{ type: 'text' as const, text }] : []),
            ...calls.map((call) => ({
              type: 'tool-call' as const,
              toolCallId: call.id,
              toolName: call.name,
              input: parsedArguments(call.arguments),
            })),
          ],
        };
      }
      case 'tool': {
        const id = message.tool_call_id ?? '';
        const toolName = callNames.get(id);
        if (toolName === undefined) throw invalid(`${field}.tool_call_id`, { detail: 'openai_tool_call_unknown', params: { id } });
        return {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: conversationText(message.content) } }],
        };
      }
    }
  });
}
