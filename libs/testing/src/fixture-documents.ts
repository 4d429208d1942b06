// The writers are loaded when fixtures are built, not whenever @waggle/testing is imported:
// most test files never build a document.

export type FixtureDocumentType = 'csv' | 'xlsx' | 'pdf' | 'docx' | 'txt' | 'md' | 'html';

export interface FixtureDocument {
  bytes: Buffer;
  /** The Content-Type to serve it with. */
  contentType: string;
  /** A file name with the right extension, e.g. to serve it at `/${fileName}`. */
  fileName: string;
  /** A phrase that the extracted text must contain. */
  expectedText: string;
  /** Every phrase the extracted text must contain (expectedText among them): other pages, sheets, cells. */
  phrases: readonly string[];
}

const CSV = ['product,units,colour', 'Zephyr Widgets,42,blue', '"Harbour Lamps, large",7,"sea ""green"""', ''].join('\r\n');

async function xlsxFixture(): Promise<Buffer> {
  const { Workbook } = await import('exceljs');
  const workbook = new Workbook();
  const inventory = workbook.addWorksheet('Inventory');
  inventory.addRow(['Item', 'Count', 'Checked']);
  inventory.addRow(['Quokka Lamps', 17, new Date(Date.UTC(2024, 2, 5))]);
  inventory.addRow(['Total', { formula: 'B2*2', result: 34 }]);
  const suppliers = workbook.addWorksheet('Suppliers');
  suppliers.addRow(['Name', 'Country']);
  suppliers.addRow(['Basalt Trading Co', 'Iceland']);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

async function pdfFixture(): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const first = pdf.addPage([595, 842]);
  first.drawText('Annual report of the Heron Valley cooperative', { x: 50, y: 780, size: 16, font });
  first.drawText('Members grew by a third this year.', { x: 50, y: 750, size: 12, font });
  const second = pdf.addPage([595, 842]);
  second.drawText('The tidal turbine budget is on page two.', { x: 50, y: 780, size: 12, font });
  return Buffer.from(await pdf.save());
}

async function docxFixture(): Promise<Buffer> {
  const { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } = await import('docx');
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const document = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'Onboarding checklist', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({
            children: [new TextRun('Bring the '), new TextRun({ text: 'cobalt badge', bold: true }), new TextRun(' to reception.')],
          }),
          new Table({
            rows: [
              new TableRow({ children: [cell('Step'), cell('Owner')] }),
              new TableRow({ children: [cell('Laptop setup'), cell('Ingrid Falk')] }),
            ],
          }),
        ],
      },
    ],
  });
  return Packer.toBuffer(document);
}

const MARKDOWN = ['# Release notes', '', '- Added the saffron exporter', '- Fixed `read_file` paging', ''].join('\n');

const HTML = [
  '<!doctype html>',
  '<html><head><title>Field guide</title><style>p { color: red }</style><script>window.secret = "do not show"</script></head>',
  '<body><h1>Field guide</h1><p>The <b>amber heron</b> nests near rivers.</p>',
  '<table><tr><th>Bird</th><th>Habitat</th></tr><tr><td>Amber heron</td><td>Wetlands</td></tr></table></body></html>',
].join('\n');

/**
 * One small document of each type `read_file` reads, generated with real writers (exceljs,
 * pdf-lib, docx), each with phrases its extracted text must contain. For the documents
 * library's tests and the agent's end-to-end tests.
 */
export async function buildFixtureDocuments(): Promise<Record<FixtureDocumentType, FixtureDocument>> {
  const [xlsx, pdf, docx] = await Promise.all([xlsxFixture(), pdfFixture(), docxFixture()]);
  return {
    csv: {
      bytes: Buffer.from(CSV, 'utf8'),
      contentType: 'text/csv',
      fileName: 'products.csv',
      expectedText: 'Zephyr Widgets',
      phrases: ['Zephyr Widgets', 'Harbour Lamps, large', 'sea "green"'],
    },
    xlsx: {
      bytes: xlsx,
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      fileName: 'inventory.xlsx',
      expectedText: 'Quokka Lamps',
      phrases: ['Quokka Lamps', 'Inventory', 'Suppliers', 'Basalt Trading Co', '2024-03-05', '34'],
    },
    pdf: {
      bytes: pdf,
      contentType: 'application/pdf',
      fileName: 'annual-report.pdf',
      expectedText: 'Heron Valley cooperative',
      phrases: ['Heron Valley cooperative', 'Members grew by a third', 'tidal turbine budget'],
    },
    docx: {
      bytes: docx,
      contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      fileName: 'onboarding.docx',
      expectedText: 'cobalt badge',
      phrases: ['Onboarding checklist', 'cobalt badge', 'Laptop setup', 'Ingrid Falk'],
    },
    txt: {
      bytes: Buffer.from('Plain notes: the lighthouse keeper logs every ship.\nSecond line.\n', 'utf8'),
      contentType: 'text/plain; charset=utf-8',
      fileName: 'notes.txt',
      expectedText: 'lighthouse keeper',
      phrases: ['lighthouse keeper', 'Second line.'],
    },
    md: {
      bytes: Buffer.from(MARKDOWN, 'utf8'),
      contentType: 'text/markdown; charset=utf-8',
      fileName: 'release-notes.md',
      expectedText: 'saffron exporter',
      phrases: ['# Release notes', 'saffron exporter', '`read_file` paging'],
    },
    html: {
      bytes: Buffer.from(HTML, 'utf8'),
      contentType: 'text/html; charset=utf-8',
      fileName: 'field-guide.html',
      expectedText: 'nests near rivers',
      phrases: ['Field guide', 'amber heron', 'nests near rivers', 'Wetlands'],
    },
  };
}
