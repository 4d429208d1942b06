import { LRUCache } from 'lru-cache';
import { AttachmentFetchError, type AttachmentFetcher } from './attachment-fetcher';
import { detectDocumentType, type DocumentType } from './document-type';
import { assertReadableDocumentType, DocumentReadError, extractDocumentText, type ReadableDocumentType } from './extract-text';

export const READ_FILE_TOOL_NAME = 'read_file';
/** Characters returned by one `read_file` call unless it asks for another `limit`. */
export const READ_FILE_DEFAULT_LIMIT = 20_000;
/** The largest `limit` honoured; a larger one is lowered to this. */
export const READ_FILE_MAX_LIMIT = 100_000;

/** The arguments the model calls `read_file` with. */
export interface ReadFileInput {
  file_url: string;
  offset?: number;
  limit?: number;
}

interface JsonSchemaProperty {
  type: 'string' | 'integer';
  description: string;
  minimum?: number;
  maximum?: number;
  default?: number;
}

/**
 * The JSON Schema of ReadFileInput. Typed with plain (not readonly) arrays so it can be handed
 * as it is to APIs that take a JSON Schema 7 object (e.g. the AI SDK's `jsonSchema()`).
 */
export interface ReadFileInputSchema {
  type: 'object';
  properties: { file_url: JsonSchemaProperty; offset: JsonSchemaProperty; limit: JsonSchemaProperty };
  required: string[];
  additionalProperties: boolean;
}

/** JSON Schema of ReadFileInput, for the tool definition handed to the model. */
export const READ_FILE_INPUT_SCHEMA: ReadFileInputSchema = {
  type: 'object',
  properties: {
    file_url: { type: 'string', description: 'The URL of an attached file, exactly as listed in <available_files>.' },
    offset: {
      type: 'integer',
      minimum: 0,
      default: 0,
      description: "Character offset to start reading at; pass the previous answer's next_offset to continue.",
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: READ_FILE_MAX_LIMIT,
      default: READ_FILE_DEFAULT_LIMIT,
      description: 'Maximum number of characters to return.',
    },
  },
  required: ['file_url'],
  additionalProperties: false,
};

/** The `read_file` tool as the model sees it: name, description and input schema. */
export const READ_FILE_TOOL: { name: typeof READ_FILE_TOOL_NAME; description: string; inputSchema: ReadFileInputSchema } = {
  name: READ_FILE_TOOL_NAME,
  description:
    'Reads an attached file as text: CSV and XLSX as Markdown tables (one per sheet), PDF page by page, DOCX, HTML and ' +
    'Markdown as Markdown, plain text as is. Answers at most `limit` characters from `offset`; while `truncated` is true, ' +
    'call again with `offset` set to `next_offset` to read on. Read a file before relying on its contents.',
  inputSchema: READ_FILE_INPUT_SCHEMA,
};

/** One page of a document: what `read_file` answers. */
export interface ReadFileObservation {
  file: string;
  type: ReadableDocumentType;
  content: string;
  offset: number;
  limit: number;
  total_length: number;
  truncated: boolean;
  next_offset: number | null;
}

/** What `read_file` answers when the file cannot be read: an observation for the model, not a failed run. */
export interface ReadFileErrorObservation {
  file: string;
  error: string;
}

export type ReadFileResult = ReadFileObservation | ReadFileErrorObservation;

export function isReadFileError(result: ReadFileResult): result is ReadFileErrorObservation {
  return 'error' in result;
}

export interface Paging {
  offset?: number;
  limit?: number;
}

type CheckedPaging = { ok: true; offset: number; limit: number } | { ok: false; error: string };

function checkPaging(paging: Paging): CheckedPaging {
  const offset = paging.offset ?? 0;
  const limit = paging.limit ?? READ_FILE_DEFAULT_LIMIT;
  if (!Number.isSafeInteger(offset) || offset < 0) return { ok: false, error: 'offset must be a non-negative integer' };
  if (!Number.isSafeInteger(limit) || limit < 1) return { ok: false, error: 'limit must be a positive integer' };
  return { ok: true, offset, limit: Math.min(limit, READ_FILE_MAX_LIMIT) };
}

/** Checks the model's arguments; the error says what is wrong in words the model can act on. */
export function parseReadFileInput(input: unknown): { ok: true; value: ReadFileInput } | { ok: false; error: string } {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return { ok: false, error: 'read_file takes an object argument' };
  const { file_url: fileUrl, offset, limit, ...rest } = input as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return { ok: false, error: `unknown argument ${unknown.map((key) => `"${key}"`).join(', ')}` };
  if (typeof fileUrl !== 'string' || fileUrl === '') return { ok: false, error: 'file_url must be a non-empty string' };
  if (offset !== undefined && offset !== null && typeof offset !== 'number')
    return { ok: false, error: 'offset must be a non-negative integer' };
  if (limit !== undefined && limit !== null && typeof limit !== 'number') return { ok: false, error: 'limit must be a positive integer' };
  const checked = checkPaging({ offset: offset ?? undefined, limit: limit ?? undefined });
  if (!checked.ok) return checked;
  return { ok: true, value: { file_url: fileUrl, offset: checked.offset, limit: checked.limit } };
}

/**
 * One page of `text` by characters (UTF-16 code units, as JavaScript counts them). A page never
 * ends between the two halves of a surrogate pair; an offset past the end gives empty content.
 */
export function pageText(file: string, type: ReadableDocumentType, text: string, paging: Paging = {}): ReadFileResult {
  const checked = checkPaging(paging);
  if (!checked.ok) return { file, error: checked.error };
  const { offset, limit } = checked;
  const start = Math.min(offset, text.length);
  let end = Math.min(start + limit, text.length);
  if (end < text.length && end - 1 > start && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  const truncated = end < text.length;
  return {
    file,
    type,
    content: text.slice(start, end),
    offset,
    limit,
    total_length: text.length,
    truncated,
    next_offset: truncated ? end : null,
  };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** A document as text, with the type it was read as. */
export interface DocumentText {
  type: ReadableDocumentType;
  text: string;
}

export interface DocumentSource {
  /** The URL (or name) the observation names as `file`. */
  file: string;
  bytes: Uint8Array;
  /** The type, when already known; otherwise it is detected from the bytes and the hints below. */
  type?: DocumentType;
  contentType?: string | null;
  /** A Content-Disposition file name. */
  fileName?: string | null;
  /** Where the bytes came from after redirects; its extension is a hint before `file`'s. */
  finalUrl?: string;
}

/** Detects the type (unless given) and extracts the text; throws DocumentReadError. */
export async function documentText(source: DocumentSource): Promise<DocumentText> {
  const { type, mime } = source.type
    ? { type: source.type, mime: null }
    : await detectDocumentType(source.bytes, {
        fileName: source.fileName,
        url: source.finalUrl === undefined ? [source.file] : [source.finalUrl, source.file],
        contentType: source.contentType,
      });
  assertReadableDocumentType(type, mime);
  return { type, text: await extractDocumentText(source.bytes, type) };
}

function errorObservation(file: string, error: unknown): ReadFileErrorObservation {
  if (error instanceof AttachmentFetchError || error instanceof DocumentReadError) return { file, error: error.message };
  return { file, error: 'the file could not be read' };
}

/**
 * The `read_file` observation for bytes already fetched: detected, extracted and paged. Never
 * throws for a bad file: an unreadable one becomes `{ file, error }`.
 */
export async function readDocument(source: DocumentSource, paging: Paging = {}): Promise<ReadFileResult> {
  const checked = checkPaging(paging);
  if (!checked.ok) return { file: source.file, error: checked.error };
  try {
    const { type, text } = await documentText(source);
    return pageText(source.file, type, text, checked);
  } catch (error) {
    return errorObservation(source.file, error);
  }
}

/** Fetches `url` through the fetcher's guard, then as readDocument. Never throws for a bad URL or file. */
export async function readDocumentFromUrl(
  url: string,
  fetcher: AttachmentFetcher,
  paging: Paging = {},
  options: { signal?: AbortSignal } = {},
): Promise<ReadFileResult> {
  const checked = checkPaging(paging);
  if (!checked.ok) return { file: url, error: checked.error };
  try {
    const fetched = await fetcher.fetch(url, options);
    return await readDocument(
      { file: url, bytes: fetched.bytes, contentType: fetched.contentType, fileName: fetched.fileName, finalUrl: fetched.finalUrl },
      checked,
    );
  } catch (error) {
    return errorObservation(url, error);
  }
}

export interface DocumentReaderOptions {
  fetcher: AttachmentFetcher;
  /** Documents kept as text between calls (default 16), so paging through one does not fetch it again. */
  cacheEntries?: number;
  /** Characters kept at most, all documents together (default 32 million). */
  cacheMaxChars?: number;
  /** How long a document is kept (default 5 minutes). */
  cacheTtlMs?: number;
}

/**
 * The `read_file` tool: takes the model's arguments as they come, answers an observation, and
 * keeps recently read documents as text so the next page is not fetched and parsed again (two
 * calls for the same URL at once share one fetch). Failures are not cached. Which URLs a run
 * may read (its structured attachments) is for the caller to check before calling.
 */
export class DocumentReader {
  private readonly fetcher: AttachmentFetcher;
  private readonly cache: LRUCache<string, DocumentText>;
  private readonly inFlight = new Map<string, Promise<DocumentText>>();

  constructor(options: DocumentReaderOptions) {
    this.fetcher = options.fetcher;
    this.cache = new LRUCache<string, DocumentText>({
      max: options.cacheEntries ?? 16,
      maxSize: options.cacheMaxChars ?? 32_000_000,
      sizeCalculation: (document) => Math.max(1, document.text.length),
      ttl: options.cacheTtlMs ?? 5 * 60_000,
    });
  }

  async read(input: unknown, options: { signal?: AbortSignal } = {}): Promise<ReadFileResult> {
    const parsed = parseReadFileInput(input);
    if (!parsed.ok) {
      const file = input !== null && typeof input === 'object' ? (input as { file_url?: unknown }).file_url : undefined;
      return { file: typeof file === 'string' ? file : '', error: parsed.error };
    }
    const { file_url: url, offset, limit } = parsed.value;
    try {
      const document = await this.documentAt(url, options.signal);
      return pageText(url, document.type, document.text, { offset, limit });
    } catch (error) {
      return errorObservation(url, error);
    }
  }

  private documentAt(url: string, signal?: AbortSignal): Promise<DocumentText> {
    const cached = this.cache.get(url);
    if (cached) return Promise.resolve(cached);
    const pending = this.inFlight.get(url);
    if (pending) return pending;
    const loading = (async () => {
      const fetched = await this.fetcher.fetch(url, { signal });
      const document = await documentText({
        file: url,
        bytes: fetched.bytes,
        contentType: fetched.contentType,
        fileName: fetched.fileName,
        finalUrl: fetched.finalUrl,
      });
      this.cache.set(url, document);
      return document;
    })().finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, loading);
    return loading;
  }
}
