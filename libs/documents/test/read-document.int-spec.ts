import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { buildFixtureDocuments, REPO_ROOT, TestHttpsServer, type FixtureDocument, type FixtureDocumentType } from '@waggle/testing';
import {
  AttachmentFetcher,
  DocumentReader,
  isReadFileError,
  readDocumentFromUrl,
  type ReadFileObservation,
  type ReadFileResult,
} from '../src';

const run = promisify(execFile);

function observation(result: ReadFileResult): ReadFileObservation {
  if (isReadFileError(result)) throw new Error(`expected an observation, got the error "${result.error}"`);
  return result;
}

describe('read_file over HTTPS', () => {
  let server: TestHttpsServer;
  let fixtures: Record<FixtureDocumentType, FixtureDocument>;
  let fetcher: AttachmentFetcher;

  beforeAll(async () => {
    [server, fixtures] = await Promise.all([TestHttpsServer.start(), buildFixtureDocuments()]);
    fetcher = new AttachmentFetcher({ allowlist: '127.0.0.1', ca: server.caCert });
  });

  afterEach(() => server.reset());

  afterAll(async () => {
    await fetcher.close();
    await server.close();
  });

  it.each(['csv', 'xlsx', 'pdf', 'docx', 'txt', 'md', 'html'] as const)('reads a %s attachment', async (type) => {
    const fixture = fixtures[type];
    server.serve(`/files/${fixture.fileName}`, fixture.bytes, fixture.contentType);
    const url = server.url(`/files/${fixture.fileName}`);
    const result = observation(await new DocumentReader({ fetcher }).read({ file_url: url }));
    expect(result).toMatchObject({ file: url, type, offset: 0, truncated: false, next_offset: null });
    for (const phrase of fixture.phrases) expect(result.content).toContain(phrase);
    expect(server.requestsTo(`/files/${fixture.fileName}`)).toHaveLength(1);
  });

  it('detects the type on fetch: a PDF at /report.txt, a DOCX without extension, Markdown named by Content-Disposition', async () => {
    server.serve('/report.txt', fixtures.pdf.bytes, 'text/plain');
    server.serve('/download/42', fixtures.docx.bytes, 'application/octet-stream');
    server.serve('/download/43', fixtures.md.bytes, 'application/octet-stream', {
      'content-disposition': 'attachment; filename="notes.md"',
    });
    const reader = new DocumentReader({ fetcher });
    expect(observation(await reader.read({ file_url: server.url('/report.txt') }))).toMatchObject({
      type: 'pdf',
      content: expect.stringContaining('Heron Valley cooperative'),
    });
    expect(observation(await reader.read({ file_url: server.url('/download/42') }))).toMatchObject({
      type: 'docx',
      content: expect.stringContaining('cobalt badge'),
    });
    expect(observation(await reader.read({ file_url: server.url('/download/43') }))).toMatchObject({ type: 'md' });
  });

  it('pages with offset and limit, fetching the file once while it pages through', async () => {
    const text = Array.from({ length: 3_000 }, (_, line) => `line ${String(line).padStart(4, '0')} of the long log`).join('\n');
    server.serve('/long.txt', text, 'text/plain');
    const url = server.url('/long.txt');
    const reader = new DocumentReader({ fetcher });

    const first = observation(await reader.read({ file_url: url }));
    expect(first).toMatchObject({ offset: 0, limit: 20_000, total_length: text.length, truncated: true, next_offset: 20_000 });
    const contents = [first.content];
    let next = first.next_offset;
    while (next !== null) {
      const page = observation(await reader.read({ file_url: url, offset: next, limit: 20_000 }));
      contents.push(page.content);
      next = page.next_offset;
    }
    expect(contents.join('')).toBe(text);
    expect(contents).toHaveLength(Math.ceil(text.length / 20_000));
    expect(server.requestsTo('/long.txt')).toHaveLength(1);
  });

  it('shares one fetch between two reads of the same file at once', async () => {
    server.serve('/shared.csv', fixtures.csv.bytes, 'text/csv');
    const reader = new DocumentReader({ fetcher });
    const [a, b] = await Promise.all([
      reader.read({ file_url: server.url('/shared.csv') }),
      reader.read({ file_url: server.url('/shared.csv'), limit: 10 }),
    ]);
    expect(observation(a).truncated).toBe(false);
    expect(observation(b)).toMatchObject({ truncated: true, next_offset: 10 });
    expect(server.requestsTo('/shared.csv')).toHaveLength(1);
  });

  it('answers a file it cannot fetch or read with an error observation, and does not keep the failure', async () => {
    const reader = new DocumentReader({ fetcher });
    const url = server.url('/later.txt');
    server.status('/later.txt', 404);
    expect(await reader.read({ file_url: url })).toEqual({ file: url, error: `could not fetch ${url}: the server answered 404` });

    server.serve('/later.txt', 'there now', 'text/plain');
    expect(observation(await reader.read({ file_url: url })).content).toBe('there now');

    server.serve('/blob', Buffer.from([0x00, 0x01, 0x02, 0x03, 0x00, 0xff]), 'application/octet-stream');
    expect(await reader.read({ file_url: server.url('/blob') })).toEqual({
      file: server.url('/blob'),
      error: 'unsupported file type (application/octet-stream): read_file reads CSV, XLSX, PDF, DOCX, text, Markdown and HTML',
    });
  });

  it('answers a refused address as an observation without connecting', async () => {
    const strict = new AttachmentFetcher({ ca: server.caCert });
    try {
      server.serve('/a.pdf', fixtures.pdf.bytes, 'application/pdf');
      const url = server.url('/a.pdf');
      expect(await readDocumentFromUrl(url, strict)).toEqual({
        file: url,
        error: `could not fetch ${url}: attachment URL points to a loopback address (127.0.0.1)`,
      });
      expect(server.requests).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  describe('from a separately started Node process that trusts the test CA through NODE_EXTRA_CA_CERTS', () => {
    let caFile: string;

    beforeAll(() => {
      caFile = server.writeCaFile();
    });

    afterAll(() => rmSync(dirname(caFile), { recursive: true, force: true }));

    // The built library, as a service loads it: file-type by require(), PDF.js by import(), and
    // no `ca` option, only the CA file in the environment.
    const script = `
      const { AttachmentFetcher, DocumentReader } = require('./dist/libs/documents/src');
      const fetcher = new AttachmentFetcher({ allowlist: '127.0.0.1' });
      new DocumentReader({ fetcher }).read({ file_url: process.argv[1] })
        .then((result) => { process.stdout.write(JSON.stringify(result)); return fetcher.close(); });
    `;

    it('reads a PDF with the built library', async () => {
      expect(existsSync(join(REPO_ROOT, 'dist/libs/documents/src/index.js'))).toBe(true);
      server.serve('/report.txt', fixtures.pdf.bytes, 'text/plain');
      const url = server.url('/report.txt');
      const { stdout } = await run(process.execPath, ['-e', script, url], {
        cwd: REPO_ROOT,
        env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
      });
      const result = JSON.parse(stdout) as ReadFileResult;
      expect(observation(result)).toMatchObject({ file: url, type: 'pdf', content: expect.stringContaining('--- Page 2 of 2 ---') });
      expect(server.requestsTo('/report.txt')).toHaveLength(1);
    });

    it('is refused by certificate verification without the CA file', async () => {
      server.serve('/a.txt', 'hello', 'text/plain');
      const url = server.url('/a.txt');
      const env = { ...process.env };
      delete env.NODE_EXTRA_CA_CERTS;
      const { stdout } = await run(process.execPath, ['-e', script, url], { cwd: REPO_ROOT, env });
      expect(JSON.parse(stdout)).toEqual({
        file: url,
        error: expect.stringMatching(
          /: the server's TLS certificate was not accepted \((?:UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)$/,
        ),
      });
      expect(server.requests).toEqual([]);
    });
  });
});
