/**
 * How documents are shown as text, the same for every type: rows (CSV, XLSX sheets) as GitHub
 * Markdown tables whose first row is the header, PDF pages under a `--- Page n of N ---` line,
 * DOCX and HTML as Markdown, text and Markdown as they are. Line ends are `\n`.
 */

/** Text of a Markdown table cell: pipes escaped, line breaks as `<br>`. */
function tableCell(value: string): string {
  return value
    .replace(/\r\n?|\n/g, '<br>')
    .replace(/\|/g, '\\|')
    .trim();
}

/** Rows as a Markdown table: the first row is the header, short rows are padded. */
export function renderRows(rows: readonly (readonly string[])[]): string {
  const width = rows.reduce((widest, row) => Math.max(widest, row.length), 0);
  if (rows.length === 0 || width === 0) return '(no rows)';
  const line = (row: readonly string[]) => `| ${Array.from({ length: width }, (_, column) => tableCell(row[column] ?? '')).join(' | ')} |`;
  const divider = `| ${Array.from({ length: width }, () => '---').join(' | ')} |`;
  return [line(rows[0]), divider, ...rows.slice(1).map(line)].join('\n');
}

/** PDF pages, each under a marker line naming its number. */
export function renderPages(pages: readonly string[]): string {
  if (pages.length === 0) return '(no pages)';
  return pages
    .map((page, index) => {
      const text = normalizeLineEnds(page).trim();
      return `--- Page ${index + 1} of ${pages.length} ---\n${text === '' ? '(no text on this page)' : text}`;
    })
    .join('\n\n');
}

export interface RenderedSheet {
  name: string;
  hidden: boolean;
  rows: string[][];
}

/** Workbook sheets in order, each under a heading with its name. */
export function renderSheets(sheets: readonly RenderedSheet[]): string {
  if (sheets.length === 0) return '(no sheets)';
  return sheets
    .map(
      (sheet) =>
        `## Sheet: ${sheet.name}${sheet.hidden ? ' (hidden)' : ''}\n\n${sheet.rows.length === 0 ? '(empty sheet)' : renderRows(sheet.rows)}`,
    )
    .join('\n\n');
}

export function normalizeLineEnds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Bytes as text: UTF-8 (a byte-order mark dropped), or Latin-1 when they are not valid UTF-8 (older spreadsheet exports). */
export function decodeText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }
  return normalizeLineEnds(text.replace(/^\uFEFF/, ''));
}
