import { buildFixtureDocuments, type FixtureDocument, type FixtureDocumentType } from '@waggle/testing';
import { detectDocumentType, documentText, isReadFileError, readDocument, type ReadFileObservation, type ReadFileResult } from '../src';

function observation(result: ReadFileResult): ReadFileObservation {
  if (isReadFileError(result)) throw new Error(`expected an observation, got the error "${result.error}"`);
  return result;
}

describe('documents written by real writers, read back', () => {
  let fixtures: Record<FixtureDocumentType, FixtureDocument>;
  const types: FixtureDocumentType[] = ['csv', 'xlsx', 'pdf', 'docx', 'txt', 'md', 'html'];

  beforeAll(async () => {
    fixtures = await buildFixtureDocuments();
  });

  it.each(types)('detects and extracts %s with every expected phrase', async (type) => {
    const fixture = fixtures[type];
    const file = `https://files.example.com/${fixture.fileName}`;
    expect((await detectDocumentType(fixture.bytes, { url: file, contentType: fixture.contentType })).type).toBe(type);
    const result = observation(await readDocument({ file, bytes: fixture.bytes, contentType: fixture.contentType }));
    expect(result).toMatchObject({ file, type, offset: 0, truncated: false, next_offset: null });
    expect(result.total_length).toBe(result.content.length);
    expect(result.content).toContain(fixture.expectedText);
    for (const phrase of fixture.phrases) expect(result.content).toContain(phrase);
  });

  it.each([
    ['pdf', '/report.txt', 'text/plain'],
    ['docx', '/sheet.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['xlsx', '/letter.docx', 'application/octet-stream'],
    ['xlsx', '/download/17', null],
    ['pdf', '/download/18', 'application/octet-stream'],
  ] as const)('reads a %s served at %s (%s) as what its bytes are', async (type, path, contentType) => {
    const fixture = fixtures[type];
    const result = observation(await readDocument({ file: `https://files.example.com${path}`, bytes: fixture.bytes, contentType }));
    expect(result.type).toBe(type);
    expect(result.content).toContain(fixture.expectedText);
  });

  it('takes text without an extension by its declared type', async () => {
    const result = observation(
      await readDocument({ file: 'https://files.example.com/export', bytes: fixtures.csv.bytes, contentType: 'text/csv' }),
    );
    expect(result.type).toBe('csv');
    expect(result.content).toContain('| Zephyr Widgets | 42 | blue |');
  });

  it('marks every PDF page', async () => {
    const { text } = await documentText({ file: 'https://files.example.com/a.pdf', bytes: fixtures.pdf.bytes });
    expect(text).toMatch(/^--- Page 1 of 2 ---\n.*Heron Valley cooperative[^]*\n\n--- Page 2 of 2 ---\n.*tidal turbine budget/);
  });

  it('shows every sheet under its name, in order, with rows as a table', async () => {
    const { text } = await documentText({ file: 'https://files.example.com/a.xlsx', bytes: fixtures.xlsx.bytes });
    expect(text).toBe(
      [
        '## Sheet: Inventory',
        '',
        '| Item | Count | Checked |',
        '| --- | --- | --- |',
        '| Quokka Lamps | 17 | 2024-03-05 |',
        '| Total | 34 |  |',
        '',
        '## Sheet: Suppliers',
        '',
        '| Name | Country |',
        '| --- | --- |',
        '| Basalt Trading Co | Iceland |',
      ].join('\n'),
    );
  });

  it('gives DOCX as Markdown: heading, emphasis and table', async () => {
    const { text } = await documentText({ file: 'https://files.example.com/a.docx', bytes: fixtures.docx.bytes });
    expect(text).toContain('# Onboarding checklist');
    expect(text).toContain('Bring the **cobalt badge** to reception.');
    expect(text).toContain('| Laptop setup | Ingrid Falk |');
  });

  it('leaves scripts and styles out of HTML', async () => {
    const { text } = await documentText({ file: 'https://files.example.com/a.html', bytes: fixtures.html.bytes });
    expect(text).not.toContain('do not show');
    expect(text).not.toContain('color: red');
    expect(text.startsWith('# Field guide')).toBe(true);
  });

  it('pages through a document: the pages put together are the whole text', async () => {
    const file = 'https://files.example.com/inventory.xlsx';
    const { text } = await documentText({ file, bytes: fixtures.xlsx.bytes });
    const pages: ReadFileObservation[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = observation(await readDocument({ file, bytes: fixtures.xlsx.bytes }, { offset, limit: 50 }));
      pages.push(page);
      offset = page.next_offset;
    }
    expect(pages).toHaveLength(Math.ceil(text.length / 50));
    expect(pages.map((page) => page.content).join('')).toBe(text);
    expect(pages.slice(0, -1).every((page) => page.truncated && page.content.length === 50)).toBe(true);
    expect(pages[pages.length - 1]).toMatchObject({ truncated: false, next_offset: null, total_length: text.length });
  });
});
