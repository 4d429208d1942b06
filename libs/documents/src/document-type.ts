import { fileTypeFromBuffer, type FileTypeResult } from 'file-type/core';
import { extensionOf } from './attachment-url';

/** What a fetched file really is; only the first seven can be read as text. */
export type DocumentType = 'csv' | 'xlsx' | 'pdf' | 'docx' | 'txt' | 'md' | 'html' | 'image' | 'unsupported';

export const READABLE_DOCUMENT_TYPES: readonly DocumentType[] = ['csv', 'xlsx', 'pdf', 'docx', 'txt', 'md', 'html'];

export interface DetectedDocumentType {
  type: DocumentType;
  /** The media type the decision rests on (detected from the bytes, else declared), for messages. */
  mime: string | null;
  /** How the type was decided. */
  source: 'bytes' | 'extension' | 'content-type' | 'text';
}

export interface DocumentTypeHints {
  /** A file name the server gave (Content-Disposition): its extension is the first hint between text types. */
  fileName?: string | null;
  /** The URL(s) the file came from, most telling first (e.g. after redirects, then as asked): their paths' extensions are the next hints. */
  url?: string | readonly string[];
  /** The Content-Type the server declared. */
  contentType?: string | null;
}

/** What file-type reports for a signature, judged; anything else it recognises is unsupported. */
const BY_SIGNATURE: Record<string, DocumentType> = {
  pdf: 'pdf',
  xlsx: 'xlsx',
  docx: 'docx',
  png: 'image',
  jpg: 'image',
  gif: 'image',
  webp: 'image',
};

// Text formats file-type recognises by their first line; such a file may still be plain text or
// Markdown (a note that starts with "BEGIN:VCARD"), so the text rules below decide.
const TEXT_SIGNATURES = new Set(['xml', 'ics', 'vcf']);

const BY_EXTENSION: Record<string, DocumentType> = {
  csv: 'csv',
  txt: 'txt',
  text: 'txt',
  md: 'md',
  markdown: 'md',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
};

const BY_CONTENT_TYPE: Record<string, DocumentType> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/markdown': 'md',
  'text/x-markdown': 'md',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/plain': 'txt',
};

/** How many leading bytes are looked at to tell text from binary content. */
const TEXT_SNIFF_BYTES = 8192;

/** The media type of a Content-Type header without its parameters, lower case. */
export function mediaTypeOf(contentType: string | null | undefined): string | null {
  if (!contentType) return null;
  const media = contentType.split(';', 1)[0].trim().toLowerCase();
  return media === '' ? null : media;
}

/** True when the start of `bytes` looks like text: no NUL byte, few other control characters. */
export function looksLikeText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, TEXT_SNIFF_BYTES);
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return false;
    // Tab, line feed, form feed and carriage return are ordinary in text; ESC appears in some.
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b) control++;
  }
  return control <= sample.length / 100;
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 1024))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
}

/**
 * Detects what a fetched file is from its bytes first (spec: "the file tool detects the actual
 * type on fetch"), so a PDF served as /report.txt is read as a PDF. Zip-based OOXML is told apart
 * (xlsx, docx; a pptx or a plain zip is unsupported). Text has no signature: a text file is
 * CSV, plain text, Markdown or HTML by the URL's extension, then by the declared Content-Type,
 * then HTML if it starts like a page, else plain text.
 */
/**
 * The format the bytes' signature shows (`file-type`), unless the bytes are text that merely
 * starts like a binary format: an abstract beginning "BMP…" has BMP's two-byte signature, one
 * whose 5th to 8th characters spell "free" QuickTime's. A real file of those formats holds NUL
 * bytes in its first KiB (sizes, offsets, reserved fields); text holds none. A PDF keeps its
 * signature: an uncompressed PDF may be all text.
 */
export async function binarySignature(bytes: Uint8Array): Promise<FileTypeResult | undefined> {
  if (bytes.length === 0) return undefined;
  const signature = await fileTypeFromBuffer(bytes);
  if (!signature || signature.ext === 'pdf' || TEXT_SIGNATURES.has(signature.ext)) return signature;
  return looksLikeText(bytes) ? undefined : signature;
}

export async function detectDocumentType(bytes: Uint8Array, hints: DocumentTypeHints = {}): Promise<DetectedDocumentType> {
  const signature = await binarySignature(bytes);
  if (signature && !TEXT_SIGNATURES.has(signature.ext)) {
    return { type: BY_SIGNATURE[signature.ext] ?? 'unsupported', mime: signature.mime, source: 'bytes' };
  }
  const declared = mediaTypeOf(hints.contentType);
  if (!looksLikeText(bytes)) return { type: 'unsupported', mime: declared, source: 'bytes' };

  const byExtension = extensionsOf(hints)
    .map((extension) => BY_EXTENSION[extension])
    .find((type) => type !== undefined);
  if (byExtension) return { type: byExtension, mime: declared, source: 'extension' };
  const byContentType = declared === null ? undefined : BY_CONTENT_TYPE[declared];
  if (byContentType) return { type: byContentType, mime: declared, source: 'content-type' };
  if (looksLikeHtml(bytes)) return { type: 'html', mime: declared, source: 'text' };
  return { type: 'txt', mime: declared, source: 'text' };
}

/** The extensions the hints name, in order: the file name's, then each URL path's. */
function extensionsOf(hints: DocumentTypeHints): string[] {
  const paths = hints.fileName ? [hints.fileName] : [];
  for (const url of typeof hints.url === 'string' ? [hints.url] : (hints.url ?? [])) {
    try {
      paths.push(new URL(url).pathname);
    } catch {
      // not a URL: no hint
    }
  }
  return paths.map((path) => extensionOf(path)).filter((extension): extension is string => extension !== null);
}
