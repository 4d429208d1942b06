import type { AgentMessageInput, AgentRunInputs } from '@waggle/contracts';
import { classifyMessageAttachments, READ_FILE_TOOL_NAME, type AcceptedAttachment } from '@waggle/documents';
import { errorMessage, WaggleException, type NestedMessage } from '@waggle/errors';
import { estimateTokens, type PromptMessage } from '@waggle/providers';
import type { UserContent } from 'ai';
import type { StoredTurn } from '../threads/thread-turns';

/** The current message's attachments, and every document a `read_file` call of this run may read. */
export interface RunAttachments {
  documents: AcceptedAttachment[];
  images: AcceptedAttachment[];
}

export interface CheckedRunInput {
  current: RunAttachments;
  /** Each caller message's attachments, in the order of `messages`. */
  history: RunAttachments[];
}

function refuse(field: string, reason: NestedMessage): WaggleException {
  return new WaggleException('validation_error', {
    detail: 'invalid_attachment_field',
    params: { field, reason },
    details: [{ field, messages: [errorMessage(reason, 'en')] }],
  });
}

/**
 * The spec's attachment rules for the current message and every caller message (https only,
 * at most 5 per message with image_urls, supported types), answered as 422
 * `validation_error` naming the item, before anything else happens.
 */
export function checkRunAttachments(input: Pick<AgentRunInputs, 'attachments' | 'image_urls' | 'messages'>): CheckedRunInput {
  const current = classifyMessageAttachments({ attachments: input.attachments, image_urls: input.image_urls });
  if (!current.ok) throw refuse(current.field, current.reason);
  const history = (input.messages ?? []).map((message, index) => {
    const checked = classifyMessageAttachments({ attachments: message.attachments, image_urls: message.image_urls });
    if (!checked.ok) throw refuse(`messages[${index}].${checked.field}`, checked.reason);
    return { documents: checked.documents, images: checked.images };
  });
  return { current: { documents: current.documents, images: current.images }, history };
}

/** Whether the current message or any caller message carries an image (the model must then see images). */
export function hasImages(checked: CheckedRunInput): boolean {
  return checked.current.images.length + checked.history.reduce((sum, message) => sum + message.images.length, 0) > 0;
}

/**
 * Documents `read_file` may read in this run: the structured attachments of the current
 * message, of the caller's `messages` and of the thread's stored turns (spec: Attachment
 * rules 5). A URL only mentioned in text is not among them. First mention wins; no repeats.
 */
export function readableDocuments(checked: CheckedRunInput, stored: readonly StoredTurn[]): AcceptedAttachment[] {
  const byUrl = new Map<string, AcceptedAttachment>();
  const add = (document: AcceptedAttachment) => {
    if (!byUrl.has(document.url)) byUrl.set(document.url, document);
  };
  for (const turn of stored)
    for (const attachment of turn.attachments) if (attachment.kind === 'document') add({ ok: true, ...attachment });
  for (const message of checked.history) message.documents.forEach(add);
  checked.current.documents.forEach(add);
  return [...byUrl.values()];
}

/** The system prompt's file manifest (spec: Attachment rules 4). */
export function availableFilesManifest(documents: readonly AcceptedAttachment[]): string {
  const lines = documents.map((document) => `<file name="${escapeAttribute(document.name)}" url="${escapeAttribute(document.url)}" />`);
  return [
    '<available_files>',
    ...lines,
    '</available_files>',
    `These files are attached to the conversation. Call the ${READ_FILE_TOOL_NAME} tool with a file's url to read it before relying on its contents.`,
  ].join('\n');
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function userContent(text: string, images: readonly AcceptedAttachment[]): UserContent {
  if (images.length === 0) return text;
  return [{ type: 'text' as const, text }, ...images.map((image) => ({ type: 'image' as const, image: new URL(image.url) }))];
}

function callerMessage(message: AgentMessageInput, attachments: RunAttachments): PromptMessage {
  if (message.role === 'user') return { role: 'user', content: userContent(message.content, attachments.images) };
  if (message.role === 'assistant') return { role: 'assistant', content: message.content };
  return { role: 'system', content: message.content };
}

export interface ConversationInput {
  instructionPrompt: string | null;
  documents: readonly AcceptedAttachment[];
  stored: readonly StoredTurn[];
  callerMessages: readonly AgentMessageInput[];
  checked: CheckedRunInput;
  message: string;
  /** The model's context in tokens (0: unknown, taken as DEFAULT_CONTEXT_TOKENS). */
  contextLimit: number;
  /** Room kept for the answer. */
  answerTokens: number;
}

/** What a model with an unknown context length is assumed to take. */
export const DEFAULT_CONTEXT_TOKENS = 128_000;

export interface Conversation {
  messages: PromptMessage[];
  /** Stored turns left out, oldest first, to fit the model's context (they stay stored). */
  omittedTurns: number;
}

/**
 * The messages a run sends (decisions: agent threads): the agent's instructions and the
 * file manifest as the system prompt, then the thread's stored turns, then the caller's
 * `messages`, then the new message. Stored turns that do not fit the model's context (minus
 * room for the answer) are left out oldest first; nothing else is cut.
 */
export function buildConversation(input: ConversationInput): Conversation {
  const systemParts = [
    input.instructionPrompt?.trim() ?? '',
    input.documents.length > 0 ? availableFilesManifest(input.documents) : '',
  ].filter(Boolean);
  const system: PromptMessage[] = systemParts.length > 0 ? [{ role: 'system', content: systemParts.join('\n\n') }] : [];
  const caller = input.callerMessages.map((message, index) =>
    callerMessage(message, input.checked.history[index] ?? { documents: [], images: [] }),
  );
  const current: PromptMessage = { role: 'user', content: userContent(input.message, input.checked.current.images) };
  const fixed = [...system, ...caller, current].reduce((sum, message) => sum + estimateTokens(message), 0);
  let room = (input.contextLimit > 0 ? input.contextLimit : DEFAULT_CONTEXT_TOKENS) - input.answerTokens - fixed;
  const kept: PromptMessage[] = [];
  let index = input.stored.length - 1;
  for (; index >= 0; index -= 1) {
    const turn = input.stored[index];
    const message: PromptMessage =
      turn.role === 'user' ? { role: 'user', content: turn.content } : { role: 'assistant', content: turn.content };
    const tokens = estimateTokens(message);
    if (tokens > room) break;
    room -= tokens;
    kept.unshift(message);
  }
  return { messages: [...system, ...kept, ...caller, current], omittedTurns: index + 1 };
}
