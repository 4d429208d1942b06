import { AttachmentFetcher } from './attachment-fetcher';
import {
  DocumentReader,
  pageText,
  parseReadFileInput,
  READ_FILE_DEFAULT_LIMIT,
  READ_FILE_INPUT_SCHEMA,
  READ_FILE_MAX_LIMIT,
  READ_FILE_TOOL,
  readDocument,
  readDocumentFromUrl,
} from './read-document';

const FILE = 'https://files.example.com/notes.txt';

describe('pageText', () => {
  const text = 'abcdefghij';

  it('answers the whole text when it fits', () => {
    expect(pageText(FILE, 'txt', text)).toEqual({
      file: FILE,
      type: 'txt',
      content: text,
      offset: 0,
      limit: READ_FILE_DEFAULT_LIMIT,
      total_length: 10,
      truncated: false,
      next_offset: null,
    });
  });

  it('pages by characters, pointing at the next page until the last', () => {
    expect(pageText(FILE, 'txt', text, { limit: 4 })).toMatchObject({
      content: 'abcd',
      offset: 0,
      limit: 4,
      truncated: true,
      next_offset: 4,
    });
    expect(pageText(FILE, 'txt', text, { offset: 4, limit: 4 })).toMatchObject({ content: 'efgh', truncated: true, next_offset: 8 });
    expect(pageText(FILE, 'txt', text, { offset: 8, limit: 4 })).toMatchObject({ content: 'ij', truncated: false, next_offset: null });
  });

  it('answers empty content past the end', () => {
    expect(pageText(FILE, 'txt', text, { offset: 50 })).toMatchObject({
      content: '',
      offset: 50,
      total_length: 10,
      truncated: false,
      next_offset: null,
    });
  });

  it('lowers a limit above the maximum to it', () => {
    const long = 'x'.repeat(READ_FILE_MAX_LIMIT + 10);
    expect(pageText(FILE, 'txt', long, { limit: READ_FILE_MAX_LIMIT * 10 })).toMatchObject({
      limit: READ_FILE_MAX_LIMIT,
      truncated: true,
      next_offset: READ_FILE_MAX_LIMIT,
    });
  });

  it('never ends a page between the halves of a surrogate pair', () => {
    const page = pageText(FILE, 'txt', 'ab😀cd', { limit: 3 });
    expect(page).toMatchObject({ content: 'ab', next_offset: 2 });
    expect(pageText(FILE, 'txt', 'ab😀cd', { offset: 2, limit: 3 })).toMatchObject({ content: '😀c', next_offset: 5 });
  });

  it.each([
    [{ offset: -1 }, 'offset must be a non-negative integer'],
    [{ offset: 1.5 }, 'offset must be a non-negative integer'],
    [{ limit: 0 }, 'limit must be a positive integer'],
    [{ limit: Number.NaN }, 'limit must be a positive integer'],
  ])('answers paging %j with an error observation', (paging, error) => {
    expect(pageText(FILE, 'txt', text, paging)).toEqual({ file: FILE, error });
  });
});

describe('parseReadFileInput', () => {
  it('takes file_url with optional offset and limit', () => {
    expect(parseReadFileInput({ file_url: FILE })).toEqual({
      ok: true,
      value: { file_url: FILE, offset: 0, limit: READ_FILE_DEFAULT_LIMIT },
    });
    expect(parseReadFileInput({ file_url: FILE, offset: 5, limit: 10 })).toEqual({
      ok: true,
      value: { file_url: FILE, offset: 5, limit: 10 },
    });
    expect(parseReadFileInput({ file_url: FILE, offset: null, limit: null })).toMatchObject({ ok: true });
  });

  it.each([
    [null, 'read_file takes an object argument'],
    ['x', 'read_file takes an object argument'],
    [{}, 'file_url must be a non-empty string'],
    [{ file_url: 5 }, 'file_url must be a non-empty string'],
    [{ file_url: FILE, offset: '5' }, 'offset must be a non-negative integer'],
    [{ file_url: FILE, limit: -3 }, 'limit must be a positive integer'],
    [{ file_url: FILE, page: 2 }, 'unknown argument "page"'],
  ])('refuses %j', (input, error) => {
    expect(parseReadFileInput(input)).toEqual({ ok: false, error });
  });
});

describe('the read_file tool definition', () => {
  it('names the tool and describes its arguments as JSON Schema', () => {
    expect(READ_FILE_TOOL.name).toBe('read_file');
    expect(READ_FILE_TOOL.inputSchema).toBe(READ_FILE_INPUT_SCHEMA);
    expect(READ_FILE_INPUT_SCHEMA).toMatchObject({
      type: 'object',
      required: ['file_url'],
      additionalProperties: false,
      properties: {
        file_url: { type: 'string' },
        offset: { type: 'integer', minimum: 0 },
        limit: { type: 'integer', minimum: 1, maximum: READ_FILE_MAX_LIMIT },
      },
    });
  });
});

describe('readDocument', () => {
  it('detects, extracts and pages fetched bytes', async () => {
    const bytes = Buffer.from('name,qty\nLamp,2\n');
    expect(await readDocument({ file: 'https://x.example/download/1', bytes, contentType: 'text/csv' }, { limit: 20 })).toEqual({
      file: 'https://x.example/download/1',
      type: 'csv',
      content: '| name | qty |\n| ---',
      offset: 0,
      limit: 20,
      total_length: '| name | qty |\n| --- | --- |\n| Lamp | 2 |'.length,
      truncated: true,
      next_offset: 20,
    });
  });

  it('reads with a type given by the caller without detecting', async () => {
    const result = await readDocument({ file: FILE, bytes: Buffer.from('a,b'), type: 'txt', contentType: 'text/csv' });
    expect(result).toMatchObject({ type: 'txt', content: 'a,b' });
  });

  it('answers an image, an unsupported file or a broken one with an error observation, not an exception', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    expect(await readDocument({ file: 'https://x.example/a.png', bytes: png })).toEqual({
      file: 'https://x.example/a.png',
      error: 'the file is an image (image/png), not a document: images are shown to the model, not read as text',
    });
    expect(await readDocument({ file: 'https://x.example/a.bin', bytes: Buffer.from([0, 1, 2, 0]) })).toEqual({
      file: 'https://x.example/a.bin',
      error: 'unsupported file type: read_file reads CSV, XLSX, PDF, DOCX, text, Markdown and HTML',
    });
    expect(await readDocument({ file: 'https://x.example/a.pdf', bytes: Buffer.from('not a pdf'), type: 'pdf' })).toEqual({
      file: 'https://x.example/a.pdf',
      error: expect.stringMatching(/^the file could not be read as PDF: /),
    });
  });
});

describe('reading a URL the fetcher refuses before connecting', () => {
  const fetcher = new AttachmentFetcher();
  afterAll(() => fetcher.close());

  it('answers with the refusal as an observation', async () => {
    expect(await readDocumentFromUrl('http://files.example.com/a.pdf', fetcher)).toEqual({
      file: 'http://files.example.com/a.pdf',
      error: 'could not fetch http://files.example.com/a.pdf: the attachment URL does not use https',
    });
  });

  it('answers bad arguments to the reader as an observation', async () => {
    const reader = new DocumentReader({ fetcher });
    expect(await reader.read({ file_url: FILE, offset: -1 })).toEqual({ file: FILE, error: 'offset must be a non-negative integer' });
    expect(await reader.read({ url: FILE })).toEqual({ file: '', error: 'unknown argument "url"' });
    expect(await reader.read({ file_url: 'https://user:pw@files.example.com/a.pdf' })).toEqual({
      file: 'https://user:pw@files.example.com/a.pdf',
      error: 'could not fetch https://user:pw@files.example.com/a.pdf: the attachment URL contains credentials',
    });
  });
});
