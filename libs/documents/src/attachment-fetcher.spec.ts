import { AttachmentFetcher, AttachmentFetchError, DEFAULT_ATTACHMENT_MAX_BYTES, fileNameOfContentDisposition } from './attachment-fetcher';

describe('AttachmentFetcher before any connection', () => {
  const fetcher = new AttachmentFetcher();
  afterAll(() => fetcher.close());

  it('has the spec defaults: 20 MiB, 30 s, 3 redirects', () => {
    expect(DEFAULT_ATTACHMENT_MAX_BYTES).toBe(20 * 1024 * 1024);
    expect(fetcher.maxBytes).toBe(20 * 1024 * 1024);
    expect(fetcher.timeoutMs).toBe(30_000);
    expect(fetcher.maxRedirects).toBe(3);
  });

  it.each([
    ['http://files.example.com/a.pdf', 'refused', 'could not fetch http://files.example.com/a.pdf: the attachment URL does not use https'],
    ['ftp://files.example.com/a.pdf', 'refused', 'could not fetch ftp://files.example.com/a.pdf: the attachment URL does not use https'],
    [
      'https://u:p@files.example.com/a.pdf',
      'refused',
      'could not fetch https://u:p@files.example.com/a.pdf: the attachment URL contains credentials',
    ],
    ['not a url', 'invalid_url', 'could not fetch not a url: the attachment URL is not an absolute URL'],
  ])('refuses %s', async (url, code, message) => {
    const failure = fetcher.fetch(url);
    await expect(failure).rejects.toBeInstanceOf(AttachmentFetchError);
    await expect(failure).rejects.toMatchObject({ code, url, message });
  });

  it('names a bad allowlist entry with its setting', () => {
    expect(() => new AttachmentFetcher({ allowlist: 'localhost:443' })).toThrow(
      'ATTACHMENT_URL_ALLOWLIST: "localhost:443" is not a host name',
    );
    expect(() => new AttachmentFetcher({ allowlist: ['ok.example', '10.0.0.0/33'], allowlistSetting: 'MY_LIST' })).toThrow(
      'MY_LIST: "10.0.0.0/33" is not a valid CIDR range',
    );
  });
});

describe('fileNameOfContentDisposition', () => {
  it.each([
    ['attachment; filename="report.pdf"', 'report.pdf'],
    ['attachment; filename=report.csv', 'report.csv'],
    ['attachment; filename*=UTF-8\'\'Gr%C3%BC%C3%9Fe.docx; filename="fallback.docx"', 'Grüße.docx'],
    ['inline', null],
    [null, null],
  ])('%s → %s', (header, name) => {
    expect(fileNameOfContentDisposition(header)).toBe(name);
  });
});
