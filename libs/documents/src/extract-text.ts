import { parse as parseCsv } from 'csv-parse/sync';
import { Workbook, type Cell } from 'exceljs';
import mammoth from 'mammoth';
import TurndownService from 'turndown';
import { tables as gfmTables } from '@joplin/turndown-plugin-gfm';
import { extractText as extractPdfText, getDocumentProxy } from 'unpdf';
import type { DocumentType } from './document-type';
import { decodeText, normalizeLineEnds, renderPages, renderRows, renderSheets, type RenderedSheet } from './text-rendering';

export type ReadableDocumentType = Exclude<DocumentType, 'image' | 'unsupported'>;

const TYPE_NAMES: Record<ReadableDocumentType, string> = {
  csv: 'CSV',
  xlsx: 'XLSX',
  pdf: 'PDF',
  docx: 'DOCX',
  txt: 'text',
  md: 'Markdown',
  html: 'HTML',
};

const MAX_CAUSE_LENGTH = 200;

/** A file that could not be turned into text; `message` is safe to show to the model. */
export class DocumentReadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DocumentReadError';
  }
}

export function isReadableDocumentType(type: DocumentType): type is ReadableDocumentType {
  return Object.hasOwn(TYPE_NAMES, type);
}

/** Throws DocumentReadError for an image or an unsupported type; `mime` (what was detected) is named in the message. */
export function assertReadableDocumentType(type: DocumentType, mime?: string | null): asserts type is ReadableDocumentType {
  const detected = mime ? ` (${mime})` : '';
  if (type === 'image') {
    throw new DocumentReadError(`the file is an image${detected}, not a document: images are shown to the model, not read as text`);
  }
  if (!isReadableDocumentType(type)) {
    throw new DocumentReadError(`unsupported file type${detected}: read_file reads CSV, XLSX, PDF, DOCX, text, Markdown and HTML`);
  }
}

/**
 * The document as one text (see text-rendering.ts for how each type looks). Throws
 * DocumentReadError for an image, an unsupported type, or a file its parser rejects.
 */
export async function extractDocumentText(bytes: Uint8Array, type: DocumentType, mime?: string | null): Promise<string> {
  assertReadableDocumentType(type, mime);
  try {
    switch (type) {
      case 'csv':
        return csvText(bytes);
      case 'xlsx':
        return await xlsxText(bytes);
      case 'pdf':
        return await pdfText(bytes);
      case 'docx':
        return await docxText(bytes);
      case 'html':
        return htmlToMarkdown(decodeText(bytes));
      case 'txt':
      case 'md':
        return decodeText(bytes);
    }
  } catch (error) {
    const cause = error instanceof Error ? error.message.split('\n', 1)[0].slice(0, MAX_CAUSE_LENGTH) : String(error);
    throw new DocumentReadError(`the file could not be read as ${TYPE_NAMES[type]}: ${cause}`, { cause: error });
  }
}

function csvText(bytes: Uint8Array): string {
  const rows: string[][] = parseCsv(decodeText(bytes), {
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
  });
  return renderRows(rows);
}

/** A cell as shown in the sheet; dates as ISO dates (a whole day without its midnight). */
function cellText(cell: Cell): string {
  const value = cell.value;
  const shown = value !== null && typeof value === 'object' && 'result' in value ? value.result : value;
  if (shown instanceof Date) {
    const iso = shown.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  return cell.text ?? '';
}

async function xlsxText(bytes: Uint8Array): Promise<string> {
  const workbook = new Workbook();
  // exceljs declares its own Buffer type; Node's is what it reads.
  await workbook.xlsx.load(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as Parameters<typeof workbook.xlsx.load>[0],
  );
  const sheets: RenderedSheet[] = workbook.worksheets.map((worksheet) => {
    const rows: string[][] = [];
    worksheet.eachRow({ includeEmpty: true }, (row) => {
      const cells: string[] = [];
      for (let column = 1; column <= row.cellCount; column++) cells.push(cellText(row.getCell(column)));
      rows.push(cells);
    });
    // Blank rows at the end carry nothing; blank rows between data keep the layout.
    while (rows.length > 0 && rows[rows.length - 1].every((cell) => cell === '')) rows.pop();
    return { name: worksheet.name, hidden: worksheet.state !== 'visible', rows };
  });
  return renderSheets(sheets);
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  // pdf.js may take over the buffer it is given, so it gets a copy.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  try {
    const { text } = await extractPdfText(pdf, { mergePages: false });
    return renderPages(text);
  } finally {
    await pdf.destroy();
  }
}

async function docxText(bytes: Uint8Array): Promise<string> {
  const { value: html } = await mammoth.convertToHtml(
    { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    {
      // Images would come inline as base64: only their alt text is kept (by the Markdown step).
      convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })),
      // A document must not make the service read files it links to.
      externalFileAccess: false,
    },
  );
  return htmlToMarkdown(html);
}

const DOCUMENT_NOISE = ['head', 'title', 'meta', 'link', 'script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed'] as const;
const PAGE_CHROME = ['nav', 'header', 'footer'] as const;

function buildConverter(removed: readonly string[]): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  service.use(gfmTables);
  service.remove([...removed] as TurndownService.Filter);
  service.addRule('imagesAsAltText', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node as { getAttribute(name: string): string | null }).getAttribute('alt')?.trim();
      return alt ? `[image: ${alt}]` : '';
    },
  });
  return service;
}

let turndown: TurndownService | undefined;
let pageTurndown: TurndownService | undefined;

function markdownConverter(): TurndownService {
  turndown ??= buildConverter(DOCUMENT_NOISE);
  return turndown;
}

/** The converter of whole web pages: the document converter's rules, minus the page's chrome. */
function pageMarkdownConverter(): TurndownService {
  pageTurndown ??= buildConverter([...DOCUMENT_NOISE, ...PAGE_CHROME]);
  return pageTurndown;
}

/**
 * HTML (a DOCX through mammoth, or a web page for the knowledge base) as Markdown. With
 * `dropPageChrome` (the `scrape` tool) a site's `<nav>`, `<header>` and `<footer>` go too: on a
 * scraped page they repeat on every page and crowd out what the model should read. A document's
 * own headers stay otherwise.
 */
export function htmlToMarkdown(html: string, options: { dropPageChrome?: boolean } = {}): string {
  const converter = options.dropPageChrome ? pageMarkdownConverter() : markdownConverter();
  return normalizeLineEnds(converter.turndown(html)).trim();
}
