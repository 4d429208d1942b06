import { errorMessage } from '@waggle/errors';
import {
  attachmentUrlOf,
  classifyAttachmentUrl,
  classifyMessageAttachments,
  extensionOf,
  MAX_ATTACHMENT_URL_LENGTH,
  MAX_ATTACHMENTS_PER_MESSAGE,
} from './attachment-url';

/** A refusal with its reason in English (the text it had before it became a message id). */
function inEnglish<T extends { ok: boolean; reason?: Parameters<typeof errorMessage>[0] }>(result: T) {
  return result.ok || result.reason === undefined ? result : { ...result, reason: errorMessage(result.reason, 'en') };
}

describe('classifyAttachmentUrl', () => {
  it.each([
    ['https://files.example.com/q3/report.pdf', 'document', 'report.pdf'],
    ['https://files.example.com/data.CSV', 'document', 'data.CSV'],
    ['https://files.example.com/book.xlsx?sig=abc', 'document', 'book.xlsx'],
    ['https://files.example.com/letter.docx#page=2', 'document', 'letter.docx'],
    ['https://files.example.com/notes.txt', 'document', 'notes.txt'],
    ['https://files.example.com/README.md', 'document', 'README.md'],
    ['https://files.example.com/guide.markdown', 'document', 'guide.markdown'],
    ['https://files.example.com/Quarterly%20Report.pdf', 'document', 'Quarterly Report.pdf'],
    ['https://files.example.com/download/12345', 'document', '12345'],
    ['https://files.example.com/api/v1.2', 'document', 'v1.2'],
    ['https://files.example.com/', 'document', 'files.example.com'],
    ['https://files.example.com', 'document', 'files.example.com'],
    ['https://cdn.example.com/cat.png', 'image', 'cat.png'],
    ['https://cdn.example.com/cat.JPG', 'image', 'cat.JPG'],
    ['https://cdn.example.com/cat.jpeg', 'image', 'cat.jpeg'],
    ['https://cdn.example.com/cat.gif', 'image', 'cat.gif'],
    ['https://cdn.example.com/cat.webp', 'image', 'cat.webp'],
  ])('accepts %s as a %s named %j', (url, kind, name) => {
    expect(classifyAttachmentUrl(url)).toEqual({ ok: true, kind, url, name });
  });

  it.each([
    ['http://files.example.com/report.pdf', 'only https:// attachment URLs are accepted (got http:)'],
    ['ftp://files.example.com/report.pdf', 'only https:// attachment URLs are accepted (got ftp:)'],
    ['file:///etc/passwd', 'only https:// attachment URLs are accepted (got file:)'],
    ['data:text/plain,hello', 'only https:// attachment URLs are accepted (got data:)'],
    ['not a url', 'attachment URL must be an absolute https:// URL'],
    ['/relative/report.pdf', 'attachment URL must be an absolute https:// URL'],
    ['', 'attachment URL must be a non-empty string'],
    ['https://user:secret@files.example.com/report.pdf', 'attachment URL must not contain credentials'],
    ['https://user@files.example.com/report.pdf', 'attachment URL must not contain credentials'],
    [`https://files.example.com/${'a'.repeat(MAX_ATTACHMENT_URL_LENGTH)}.pdf`, 'attachment URL must be at most 2048 characters'],
  ])('refuses %s', (url, reason) => {
    expect(inEnglish(classifyAttachmentUrl(url))).toEqual({ ok: false, reason });
  });

  it.each(['exe', 'zip', 'doc', 'xls', 'pptx', 'json', 'svg', 'gz'])('refuses the unsupported extension .%s, naming it', (extension) => {
    const result = inEnglish(classifyAttachmentUrl(`https://files.example.com/file.${extension}`));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(
      new RegExp(`^unsupported attachment type "\\.${extension}": documents may be \\.csv, \\.xlsx,`),
    );
  });

  it('judges the path only, not the query or fragment', () => {
    expect(classifyAttachmentUrl('https://files.example.com/get?name=virus.exe')).toMatchObject({ ok: true, kind: 'document' });
    expect(classifyAttachmentUrl('https://files.example.com/setup.exe?as=report.pdf')).toMatchObject({ ok: false });
  });

  it('keeps the URL exactly as given', () => {
    const url = 'https://Files.Example.com/a%20b/report.pdf?X-Amz-Signature=abc';
    expect(classifyAttachmentUrl(url)).toMatchObject({ ok: true, url });
  });
});

describe('extensionOf', () => {
  it.each([
    ['/a/report.pdf', 'pdf'],
    ['/a/archive.tar.gz', 'gz'],
    ['/a/REPORT.PDF', 'pdf'],
    ['/a/report%2Epdf', 'pdf'],
    ['/a/report', null],
    ['/a/v1.2', null],
    ['/a/trailing.', null],
    ['/a.b/c', null],
    ['/', null],
    ['report.docx', 'docx'],
  ])('%s → %s', (path, extension) => {
    expect(extensionOf(path)).toBe(extension);
  });
});

describe('attachmentUrlOf', () => {
  it('takes a URL string or an object with file_url', () => {
    expect(attachmentUrlOf('https://x.example/a.pdf')).toBe('https://x.example/a.pdf');
    expect(attachmentUrlOf({ file_url: 'https://x.example/a.pdf' })).toBe('https://x.example/a.pdf');
  });

  it.each([[null], [42], [{ url: 'https://x.example/a.pdf' }], [{ file_url: 7 }], [['https://x.example/a.pdf']]])(
    'is null for %j',
    (item) => {
      expect(attachmentUrlOf(item)).toBeNull();
    },
  );
});

describe('classifyMessageAttachments', () => {
  it('normalizes both forms and splits documents from images', () => {
    const result = classifyMessageAttachments({
      attachments: ['https://x.example/a.pdf', { file_url: 'https://x.example/b.png' }, 'https://x.example/download/9'],
      image_urls: ['https://cdn.example/c.webp', 'https://cdn.example/avatar/42'],
    });
    expect(result).toEqual({
      ok: true,
      documents: [
        { ok: true, kind: 'document', url: 'https://x.example/a.pdf', name: 'a.pdf' },
        { ok: true, kind: 'document', url: 'https://x.example/download/9', name: '9' },
      ],
      images: [
        { ok: true, kind: 'image', url: 'https://x.example/b.png', name: 'b.png' },
        { ok: true, kind: 'image', url: 'https://cdn.example/c.webp', name: 'c.webp' },
        { ok: true, kind: 'image', url: 'https://cdn.example/avatar/42', name: '42' },
      ],
    });
  });

  it('accepts a message without attachments', () => {
    expect(classifyMessageAttachments({})).toEqual({ ok: true, documents: [], images: [] });
  });

  it(`accepts ${MAX_ATTACHMENTS_PER_MESSAGE} and refuses ${MAX_ATTACHMENTS_PER_MESSAGE + 1}, counting image_urls too`, () => {
    const urls = (count: number) => Array.from({ length: count }, (_, index) => `https://x.example/${index}.pdf`);
    expect(
      classifyMessageAttachments({ attachments: urls(3), image_urls: ['https://x.example/a.png', 'https://x.example/b.png'] }).ok,
    ).toBe(true);
    expect(
      inEnglish(classifyMessageAttachments({ attachments: urls(4), image_urls: ['https://x.example/a.png', 'https://x.example/b.png'] })),
    ).toEqual({
      ok: false,
      field: 'attachments',
      reason: 'at most 5 attachments per message (attachments and image_urls together), got 6',
    });
  });

  it('names the field of the first bad item', () => {
    expect(inEnglish(classifyMessageAttachments({ attachments: ['https://x.example/a.pdf', 'http://x.example/b.pdf'] }))).toEqual({
      ok: false,
      field: 'attachments[1]',
      reason: 'only https:// attachment URLs are accepted (got http:)',
    });
    expect(classifyMessageAttachments({ attachments: [{ href: 'https://x.example/a.pdf' }] })).toMatchObject({
      ok: false,
      field: 'attachments[0]',
    });
    expect(inEnglish(classifyMessageAttachments({ image_urls: ['https://x.example/a.pdf'] }))).toMatchObject({
      ok: false,
      field: 'image_urls[0]',
      reason: expect.stringMatching(/^image_urls must name images/),
    });
    expect(classifyMessageAttachments({ image_urls: ['https://x.example/a.exe'] })).toMatchObject({ ok: false, field: 'image_urls[0]' });
    expect(classifyMessageAttachments({ attachments: 'https://x.example/a.pdf' })).toMatchObject({ ok: false, field: 'attachments' });
  });

  it("gives its reasons as message ids, read in the caller's language", () => {
    const refused = classifyMessageAttachments({ attachments: ['https://x.example/a.pdf', 'http://x.example/b.pdf'] });
    expect(!refused.ok && errorMessage(refused.reason, 'es')).toBe('solo se aceptan URL de adjunto https:// (se recibió http:)');
    const image = classifyMessageAttachments({ image_urls: ['https://x.example/a.pdf'] });
    expect(!image.ok && errorMessage(image.reason, 'es')).toMatch(/^image_urls debe nombrar imágenes \(\.png/);
  });

  it('keeps a URL named twice once', () => {
    const result = classifyMessageAttachments({ attachments: ['https://x.example/a.pdf', { file_url: 'https://x.example/a.pdf' }] });
    expect(result.ok && result.documents).toHaveLength(1);
  });
});
