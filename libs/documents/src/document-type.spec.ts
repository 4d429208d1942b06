import { binarySignature, detectDocumentType, looksLikeText, mediaTypeOf } from './document-type';

/** A zip archive holding files stored without compression, as the format's local headers lay them out. */
function storedZip(files: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const nameBytes = Buffer.from(name, 'utf8');
    const data = Buffer.from(content, 'utf8');
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt32LE(data.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(nameBytes.length, 26);
    parts.push(header, nameBytes, data);
  }
  return Buffer.concat(parts);
}

const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const text = (value: string) => Buffer.from(value, 'utf8');

describe('detectDocumentType', () => {
  it('trusts the bytes over the URL and the declared type: a PDF served as /report.txt is a PDF', async () => {
    expect(await detectDocumentType(PDF, { url: 'https://x.example/report.txt', contentType: 'text/plain' })).toEqual({
      type: 'pdf',
      mime: 'application/pdf',
      source: 'bytes',
    });
  });

  it('tells zip-based Office documents apart by their entries', async () => {
    const contentTypes = (part: string, type: string) =>
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="${part}" ContentType="application/vnd.openxmlformats-officedocument.${type}.main+xml"/></Types>`;
    const docx = storedZip({
      '[Content_Types].xml': contentTypes('/word/document.xml', 'wordprocessingml.document'),
      'word/document.xml': '<w/>',
    });
    const xlsx = storedZip({ '[Content_Types].xml': contentTypes('/xl/workbook.xml', 'spreadsheetml.sheet'), 'xl/workbook.xml': '<x/>' });
    const pptx = storedZip({
      '[Content_Types].xml': contentTypes('/ppt/presentation.xml', 'presentationml.presentation'),
      'ppt/p.xml': '<p/>',
    });
    expect((await detectDocumentType(docx, { url: 'https://x.example/a.xlsx' })).type).toBe('docx');
    expect((await detectDocumentType(xlsx, { url: 'https://x.example/a.docx' })).type).toBe('xlsx');
    expect(await detectDocumentType(pptx)).toMatchObject({ type: 'unsupported', source: 'bytes' });
    expect(await detectDocumentType(storedZip({ 'hello.txt': 'hi' }), { url: 'https://x.example/a.csv' })).toEqual({
      type: 'unsupported',
      mime: 'application/zip',
      source: 'bytes',
    });
  });

  it('detects images from the bytes', async () => {
    expect(await detectDocumentType(PNG, { url: 'https://x.example/a.pdf' })).toEqual({
      type: 'image',
      mime: 'image/png',
      source: 'bytes',
    });
  });

  it('refuses binary content it does not know, whatever the URL says', async () => {
    const binary = Buffer.from([0x13, 0x37, 0x00, 0x01, 0x02, 0x00, 0xff, 0xfe, 0x00]);
    expect(await detectDocumentType(binary, { url: 'https://x.example/a.csv', contentType: 'text/csv' })).toEqual({
      type: 'unsupported',
      mime: 'text/csv',
      source: 'bytes',
    });
  });

  it.each([
    ['https://x.example/a.csv', 'text/plain', 'csv'],
    ['https://x.example/a.CSV', null, 'csv'],
    ['https://x.example/a.txt', 'text/csv', 'txt'],
    ['https://x.example/a.md', 'text/plain', 'md'],
    ['https://x.example/a.markdown', null, 'md'],
    ['https://x.example/a.html', 'text/plain', 'html'],
  ])('reads text at %s (declared %s) as %s by its extension', async (url, contentType, type) => {
    expect(await detectDocumentType(text('a,b\n1,2\n'), { url, contentType })).toEqual({ type, mime: contentType, source: 'extension' });
  });

  it.each([
    ['text/csv; charset=utf-8', 'csv'],
    ['application/csv', 'csv'],
    ['text/markdown', 'md'],
    ['TEXT/HTML; charset=UTF-8', 'html'],
    ['text/plain', 'txt'],
  ])('falls back to the declared type %s when the path has no text extension', async (contentType, type) => {
    expect(await detectDocumentType(text('a,b\n1,2\n'), { url: 'https://x.example/download/7', contentType })).toMatchObject({
      type,
      source: 'content-type',
    });
  });

  it('takes a text file served as .pdf for what it is', async () => {
    expect(await detectDocumentType(text('just words'), { url: 'https://x.example/a.pdf', contentType: 'application/pdf' })).toEqual({
      type: 'txt',
      mime: 'application/pdf',
      source: 'text',
    });
  });

  it('recognises an HTML page without any hint, and plain text otherwise', async () => {
    expect((await detectDocumentType(text('\uFEFF  <!DOCTYPE html><html><body>x</body></html>'))).type).toBe('html');
    expect((await detectDocumentType(text('<html lang="en"><p>x</p></html>'))).type).toBe('html');
    expect(await detectDocumentType(text('hello there'))).toEqual({ type: 'txt', mime: null, source: 'text' });
    expect(await detectDocumentType(Buffer.alloc(0))).toEqual({ type: 'txt', mime: null, source: 'text' });
  });

  it('uses the file name the server gave before the URLs, and the URLs in the order given', async () => {
    const csv = text('a,b\n');
    expect((await detectDocumentType(csv, { fileName: 'export.csv', url: 'https://x.example/export.txt' })).type).toBe('csv');
    expect((await detectDocumentType(csv, { url: ['https://cdn.example/blob/1', 'https://x.example/a.md'] })).type).toBe('md');
    expect((await detectDocumentType(csv, { url: ['https://cdn.example/a.csv', 'https://x.example/a.md'] })).type).toBe('csv');
  });

  it('lets the text rules decide for text formats file-type names by their first line', async () => {
    expect((await detectDocumentType(text('<?xml version="1.0"?><note/>'), { url: 'https://x.example/a.txt' })).type).toBe('txt');
    expect((await detectDocumentType(text('BEGIN:VCARD\nVERSION:3.0\nEND:VCARD\n'), { url: 'https://x.example/card.md' })).type).toBe('md');
  });
});

describe('binarySignature', () => {
  // SciFact abstracts that file-type alone took for a BMP image and a QuickTime movie.
  const startsLikeBmp = text('BMP-2 signalling drives bone formation; we show in mice that the ligand acts early.');
  const startsLikeQuickTime = text('The widespread regulation of microRNA biogenesis, function and decay'); // bytes 4-8: "wide", a QuickTime atom
  const bmp = Buffer.concat([
    Buffer.from('BM', 'ascii'),
    Buffer.from('3a0000000000000036000000280000000100000001000000010018000000000004000000130b0000130b00000000000000000000', 'hex'),
  ]);

  it('takes text that merely starts like a binary format for text', async () => {
    expect(await binarySignature(startsLikeBmp)).toBeUndefined();
    expect(await detectDocumentType(startsLikeBmp, { fileName: '11831598.txt', contentType: 'text/plain' })).toEqual({
      type: 'txt',
      mime: 'text/plain',
      source: 'extension',
    });
    expect(await binarySignature(startsLikeQuickTime)).toBeUndefined();
    expect(await detectDocumentType(startsLikeQuickTime, { fileName: '2619579.txt' })).toMatchObject({ type: 'txt' });
  });

  it('keeps the signature of real binaries, and of PDFs even when they are all text', async () => {
    expect(await binarySignature(bmp)).toMatchObject({ ext: 'bmp', mime: 'image/bmp' });
    expect(await binarySignature(PNG)).toMatchObject({ mime: 'image/png' });
    expect(await binarySignature(PDF)).toMatchObject({ mime: 'application/pdf' });
    expect(await binarySignature(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('looksLikeText', () => {
  it('accepts text, including UTF-8 and the usual whitespace', () => {
    expect(looksLikeText(text('Grüße,\tñ\r\nnext line\f'))).toBe(true);
  });

  it('refuses NUL bytes and many control characters', () => {
    expect(looksLikeText(Buffer.from([0x61, 0x00, 0x62]))).toBe(false);
    expect(looksLikeText(Buffer.from([0x01, 0x02, 0x03, 0x61]))).toBe(false);
  });
});

describe('mediaTypeOf', () => {
  it('drops parameters and case', () => {
    expect(mediaTypeOf('Text/CSV; charset=utf-8')).toBe('text/csv');
    expect(mediaTypeOf('')).toBeNull();
    expect(mediaTypeOf(null)).toBeNull();
  });
});
