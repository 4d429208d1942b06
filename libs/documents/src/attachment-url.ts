import { nestedMessage, type NestedMessage } from '@waggle/errors';
import { safeDecodeURIComponent } from '@waggle/platform';
/** At most this many attachments per agent message, `attachments` and `image_urls` together (spec: Attachment rules 2). */
export const MAX_ATTACHMENTS_PER_MESSAGE = 5;

/** Longer URLs are refused, as callback URLs are. */
export const MAX_ATTACHMENT_URL_LENGTH = 2048;

/** Documents `read_file` can read, by the extension of the URL's path (spec: Attachment rules 3). */
export const DOCUMENT_EXTENSIONS: readonly string[] = ['csv', 'xlsx', 'pdf', 'docx', 'txt', 'md', 'markdown'];

/** Images, which go to the model as image parts rather than through `read_file`. */
export const IMAGE_EXTENSIONS: readonly string[] = ['png', 'jpg', 'jpeg', 'gif', 'webp'];

export type AttachmentKind = 'document' | 'image';

export interface AcceptedAttachment {
  ok: true;
  kind: AttachmentKind;
  /** The URL exactly as the caller gave it: what `read_file` is later asked for. */
  url: string;
  /** The last path segment, decoded (the host when the path has none): for the `<available_files>` manifest. */
  name: string;
}

export interface RefusedAttachment {
  ok: false;
  /** Safe to show to the caller, e.g. in a 422: a message id (invalid_attachment_field's `%{reason}`), read in the caller's language. */
  reason: NestedMessage;
}

export type AttachmentClassification = AcceptedAttachment | RefusedAttachment;

/** One item of `attachments` as the spec allows it. */
export type AttachmentInput = string | { file_url: string };

/**
 * The extension of the path's last segment, lower case without the dot, or null when it has
 * none. Only a short run of letters and digits after the last dot counts (".pdf", ".tar.gz" →
 * "gz"); "/v1.2" or "/archive." have none, so such a path is judged by its content later.
 */
export function extensionOf(pathname: string): string | null {
  const segment = lastSegment(pathname);
  const match = /\.([a-z0-9]{1,10})$/i.exec(segment);
  if (!match || !/[a-z]/i.test(match[1])) return null;
  return match[1].toLowerCase();
}

function lastSegment(pathname: string): string {
  return safeDecodeURIComponent(pathname.slice(pathname.lastIndexOf('/') + 1));
}

function dotted(extensions: readonly string[]): string {
  return extensions.map((extension) => `.${extension}`).join(', ');
}

/**
 * Judges an attachment URL before anything is fetched (spec: Attachment rules 1, 3 and 6): only
 * https, no credentials, and a supported document or image extension, or none at all (the type is
 * then detected from the bytes when `read_file` fetches it). Whether the host may be reached is
 * decided at connect time by the fetcher's SSRF guard, which sees the address actually dialled.
 */
export function classifyAttachmentUrl(url: string): AttachmentClassification {
  if (typeof url !== 'string' || url.trim() === '') return { ok: false, reason: { detail: 'attachment_url_empty' } };
  if (url.length > MAX_ATTACHMENT_URL_LENGTH) {
    return { ok: false, reason: nestedMessage({ detail: 'attachment_url_too_long', params: { max: MAX_ATTACHMENT_URL_LENGTH } }) };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: { detail: 'attachment_url_not_absolute' } };
  }
  if (parsed.protocol !== 'https:')
    return { ok: false, reason: nestedMessage({ detail: 'attachment_url_not_https', params: { protocol: parsed.protocol } }) };
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: { detail: 'attachment_url_credentials' } };
  if (parsed.hostname === '') return { ok: false, reason: { detail: 'attachment_url_no_host' } };

  const name = lastSegment(parsed.pathname) || parsed.hostname;
  const extension = extensionOf(parsed.pathname);
  if (extension === null || DOCUMENT_EXTENSIONS.includes(extension)) return { ok: true, kind: 'document', url, name };
  if (IMAGE_EXTENSIONS.includes(extension)) return { ok: true, kind: 'image', url, name };
  return {
    ok: false,
    reason: nestedMessage({
      detail: 'attachment_type_unsupported',
      params: { extension, documents: dotted(DOCUMENT_EXTENSIONS), images: dotted(IMAGE_EXTENSIONS) },
    }),
  };
}

/** The URL of one `attachments` item (a URL string or `{ file_url }`), or null when the item has neither form. */
export function attachmentUrlOf(item: unknown): string | null {
  if (typeof item === 'string') return item;
  if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
    const fileUrl = (item as { file_url?: unknown }).file_url;
    if (typeof fileUrl === 'string') return fileUrl;
  }
  return null;
}

export interface MessageAttachmentsInput {
  attachments?: unknown;
  image_urls?: unknown;
}

export type MessageAttachments =
  { ok: true; documents: AcceptedAttachment[]; images: AcceptedAttachment[] } | { ok: false; field: string; reason: NestedMessage };

/**
 * Normalizes and judges every attachment of one agent message: `attachments` (URL strings or
 * `{ file_url }`) and the `image_urls` shorthand, at most MAX_ATTACHMENTS_PER_MESSAGE of them
 * together. The first problem is answered with the field it is in (e.g. `attachments[2]`), for
 * the 422 the spec asks for before any stream opens. A URL named twice is kept once.
 */
export function classifyMessageAttachments(input: MessageAttachmentsInput): MessageAttachments {
  const attachments = input.attachments ?? [];
  const imageUrls = input.image_urls ?? [];
  if (!Array.isArray(attachments))
    return {
      ok: false,
      field: 'attachments',
      reason: nestedMessage({ detail: 'attachments_not_array', params: { field: 'attachments' } }),
    };
  if (!Array.isArray(imageUrls))
    return { ok: false, field: 'image_urls', reason: nestedMessage({ detail: 'attachments_not_array', params: { field: 'image_urls' } }) };
  const count = attachments.length + imageUrls.length;
  if (count > MAX_ATTACHMENTS_PER_MESSAGE) {
    return {
      ok: false,
      field: 'attachments',
      reason: nestedMessage({ detail: 'attachments_too_many', params: { max: MAX_ATTACHMENTS_PER_MESSAGE, count } }),
    };
  }

  const documents: AcceptedAttachment[] = [];
  const images: AcceptedAttachment[] = [];
  const seen = new Set<string>();
  const keep = (accepted: AcceptedAttachment) => {
    if (seen.has(accepted.url)) return;
    seen.add(accepted.url);
    (accepted.kind === 'image' ? images : documents).push(accepted);
  };

  for (const [index, item] of attachments.entries()) {
    const field = `attachments[${index}]`;
    const url = attachmentUrlOf(item);
    if (url === null) return { ok: false, field, reason: { detail: 'attachment_not_url' } };
    const classified = classifyAttachmentUrl(url);
    if (!classified.ok) return { ok: false, field, reason: classified.reason };
    keep(classified);
  }
  for (const [index, item] of imageUrls.entries()) {
    const field = `image_urls[${index}]`;
    if (typeof item !== 'string') return { ok: false, field, reason: { detail: 'image_url_not_string' } };
    const classified = classifyAttachmentUrl(item);
    if (!classified.ok) return { ok: false, field, reason: classified.reason };
    // An image URL without an extension is taken at its word; one naming a document is not an image.
    if (classified.kind === 'document' && extensionOf(new URL(item).pathname) !== null) {
      return {
        ok: false,
        field,
        reason: nestedMessage({ detail: 'image_urls_not_images', params: { extensions: dotted(IMAGE_EXTENSIONS) } }),
      };
    }
    keep({ ...classified, kind: 'image' });
  }
  return { ok: true, documents, images };
}
