import { WaggleException } from '@waggle/errors';
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
export function lastUserText(messages: RunMessage[]): string | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    return message.content.map((part) => (part.type === 'text' ? part.text : `[image ${part.image.toString()}]`)).join(' ');
  }
  return null;
}
