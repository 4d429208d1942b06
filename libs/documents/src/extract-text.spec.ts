import { Workbook } from 'exceljs';
import { DocumentReadError, extractDocumentText, htmlToMarkdown } from './extract-text';

const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('extractDocumentText', () => {
  it('renders CSV rows as a table, quotes and embedded commas understood', async () => {
    const csv = 'name,note\r\n"Lamp, large","said ""hi"""\r\n\r\nShort\r\n';
    expect(await extractDocumentText(utf8(csv), 'csv')).toBe(
      ['| name | note |', '| --- | --- |', '| Lamp, large | said "hi" |', '| Short |  |'].join('\n'),
    );
  });

  it('renders each XLSX sheet under its name, with formula results and ISO dates', async () => {
    const workbook = new Workbook();
    const sheet = workbook.addWorksheet('Budget');
    sheet.addRow(['Item', 'Cost', 'Due']);
    sheet.addRow(['Paint', 12.5, new Date(Date.UTC(2025, 0, 31))]);
    sheet.addRow(['Total', { formula: 'B2*2', result: 25 }]);
    workbook.addWorksheet('Empty');
    const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(await extractDocumentText(bytes, 'xlsx')).toBe(
      [
        '## Sheet: Budget',
        '',
        '| Item | Cost | Due |',
        '| --- | --- | --- |',
        '| Paint | 12.5 | 2025-01-31 |',
        '| Total | 25 |  |',
        '',
        '## Sheet: Empty',
        '',
        '(empty sheet)',
      ].join('\n'),
    );
  });

  it('gives text and Markdown as they are', async () => {
    expect(await extractDocumentText(utf8('# Title\r\n\r\n- item'), 'md')).toBe('# Title\n\n- item');
    expect(await extractDocumentText(utf8('plain'), 'txt')).toBe('plain');
  });

  it('turns HTML into Markdown without scripts or styles', async () => {
    const html =
      '<html><head><style>p{}</style><script>secret()</script></head><body><h2>Title</h2><p>A <b>bold</b> move.</p></body></html>';
    expect(await extractDocumentText(utf8(html), 'html')).toBe('## Title\n\nA **bold** move.');
  });

  it.each([
    ['image', 'image/png', 'the file is an image (image/png), not a document: images are shown to the model, not read as text'],
    [
      'unsupported',
      'application/zip',
      'unsupported file type (application/zip): read_file reads CSV, XLSX, PDF, DOCX, text, Markdown and HTML',
    ],
    ['unsupported', null, 'unsupported file type: read_file reads CSV, XLSX, PDF, DOCX, text, Markdown and HTML'],
  ] as const)('refuses %s (%s)', async (type, mime, message) => {
    await expect(extractDocumentText(utf8('x'), type, mime)).rejects.toThrow(new DocumentReadError(message));
  });

  it('reads a PDF page by page', async () => {
    // A one-page PDF written by hand (no cross-reference table: PDF.js rebuilds it).
    const pdf = [
      '%PDF-1.4',
      '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
      '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
      '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj',
      '4 0 obj << /Length 43 >> stream',
      'BT /F1 18 Tf 20 100 Td (Hello pages) Tj ET',
      'endstream endobj',
      '5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj',
      'trailer << /Root 1 0 R >>',
      '%%EOF',
    ].join('\n');
    expect(await extractDocumentText(utf8(pdf), 'pdf')).toBe('--- Page 1 of 1 ---\nHello pages');
  });

  it.each([
    ['pdf', /^the file could not be read as PDF: Invalid PDF structure/],
    ['docx', /^the file could not be read as DOCX: /],
    ['xlsx', /^the file could not be read as XLSX: /],
  ] as const)('answers a %s its parser rejects with a DocumentReadError', async (type, message) => {
    const failure = extractDocumentText(utf8('this is not that kind of file'), type);
    await expect(failure).rejects.toBeInstanceOf(DocumentReadError);
    await expect(failure).rejects.toThrow(message);
  });
});

describe('htmlToMarkdown', () => {
  it('keeps tables as Markdown tables and images as their alt text', () => {
    const html =
      '<table><tr><th>Bird</th><th>Place</th></tr><tr><td>Heron</td><td>River</td></tr></table><p><img src="x.png" alt="a heron"><img src="y.png"></p>';
    expect(htmlToMarkdown(html)).toBe('| Bird | Place |\n| --- | --- |\n| Heron | River |\n\n[image: a heron]');
  });
});
