import { createWebSearchProvider, WebToolError } from '@waggle/providers';
import { createTestCertificates, FakeSearchServer, TestHttpsServer, type TestCertificates } from '@waggle/testing';
import { WebScraper, type WebScraperOptions } from '../src';

async function failureOf(promise: Promise<unknown>): Promise<WebToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WebToolError) return error;
    throw error;
  }
  throw new Error('expected the scrape to fail');
}

/**
 * The scrape tool against the fake search server's pages over HTTPS with a test CA, loopback
 * allowlisted as SCRAPE_URL_ALLOWLIST would in tests: search, then scrape what was found.
 */
describe('WebScraper against the fake search server over HTTPS', () => {
  let certificates: TestCertificates;
  let fake: FakeSearchServer;
  let files: TestHttpsServer;
  const scrapers: WebScraper[] = [];

  /** Loopback allowlisted; the fake's test CA trusted (or, for the pages of `files`, that server's own). */
  const scraper = (options: WebScraperOptions = {}, ca: string = certificates.caCert) => {
    const created = new WebScraper({ allowlist: '127.0.0.1', ca, ...options });
    scrapers.push(created);
    return created;
  };

  beforeAll(async () => {
    certificates = await createTestCertificates();
    fake = new FakeSearchServer({ tls: { key: certificates.key, cert: certificates.cert } });
    await fake.start();
    files = await TestHttpsServer.start();
  });

  afterEach(async () => {
    await Promise.all(scrapers.splice(0).map((created) => created.close()));
    files.reset();
  });

  afterAll(async () => {
    await fake.stop();
    await files.close();
  });

  it('scrapes the pages a search found: title, readable text, no script or page chrome', async () => {
    // The URLs the fake's search answers list (searching over HTTPS would need the CA in NODE_EXTRA_CA_CERTS: the next test searches over http).
    const urls = [1, 2].map((index) => fake.pageUrl('Grey heron habitat', index));
    const pages = await Promise.all(urls.map((url) => scraper().scrape(url)));
    expect(pages[0]).toEqual({
      url: urls[0],
      title: 'Result 1 for grey heron habitat',
      content: '# Result 1 for grey heron habitat\n\nThis is result number 1 for the query "grey heron habitat".',
      content_type: 'text/html',
      truncated: false,
    });
    expect(pages[1].content).toContain('result number 2');
    for (const page of pages) expect(page.content).not.toMatch(/SCRIPT TEXT|Fake footer|Fake Search Site|Home|font-family/);
  });

  it('scrapes the URLs a search provider answered, naming the query as it was asked', async () => {
    const plain = new FakeSearchServer({ pagesBaseUrl: fake.url });
    await plain.start();
    try {
      const search = createWebSearchProvider({ WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: plain.url });
      const results = (await search?.search({ query: 'Little Egret', numResults: 2 })) ?? [];
      expect(results.map((result) => result.url)).toEqual([`${fake.url}/pages/little-egret-1`, `${fake.url}/pages/little-egret-2`]);
      const page = await scraper().scrape(results[1].url);
      // Another fake serves the pages, so it knows the query only from the slug.
      expect(page).toMatchObject({ title: 'Result 2 for little egret', truncated: false });
    } finally {
      await plain.stop();
    }
  });

  it('cuts the text at maxChars and says so', async () => {
    const page = await scraper({ maxChars: 15 }).scrape(fake.pageUrl('egret', 1));
    expect(page).toMatchObject({ content: '# Result 1 for ', truncated: true });
    expect(page.content).toHaveLength(15);
  });

  it('passes text and Markdown as they are, and follows a redirect', async () => {
    files.serve('/notes.md', '# Notes\n\n<b>kept as written</b>\n', 'text/markdown; charset=utf-8');
    files.serve('/plain.txt', 'just text', 'text/plain');
    files.redirect('/moved', '/plain.txt');
    expect(await scraper({}, files.caCert).scrape(files.url('/notes.md'))).toEqual({
      url: files.url('/notes.md'),
      title: null,
      content: '# Notes\n\n<b>kept as written</b>\n',
      content_type: 'text/markdown',
      truncated: false,
    });
    expect(await scraper({}, files.caCert).scrape(files.url('/moved'))).toMatchObject({
      url: files.url('/moved'),
      content: 'just text',
      content_type: 'text/plain',
    });
  });

  it('refuses a loopback page without an allowlist, before connecting', async () => {
    fake.clearRequests();
    const error = await failureOf(new WebScraper({ ca: certificates.caCert }).scrape(fake.pageUrl('egret', 1)));
    expect(error.code).toBe('refused');
    expect(error.message).toMatch(/^could not fetch https:\/\/127\.0\.0\.1:\d+\/pages\/egret-1: /);
    expect(fake.requests).toEqual([]);
  });

  it('refuses a plain http page', async () => {
    expect(await failureOf(scraper().scrape('http://127.0.0.1:9/page'))).toMatchObject({
      code: 'refused',
      message: expect.stringContaining('page URL does not use https'),
    });
  });

  it('is http_status with the status for a missing page', async () => {
    expect(await failureOf(scraper().scrape(fake.pageUrl('broken link', 1)))).toMatchObject({
      code: 'http_status',
      status: 404,
      message: expect.stringContaining('answered 404'),
    });
  });

  it('is too_large for a page over maxBytes', async () => {
    expect(await failureOf(scraper({ maxBytes: 64 * 1024 }).scrape(fake.pageUrl('huge', 1)))).toMatchObject({
      code: 'too_large',
      message: expect.stringContaining('64 KiB'),
    });
  });

  it('is unreadable for binary content that is no document', async () => {
    const error = await failureOf(scraper().scrape(fake.pageUrl('binary', 1)));
    expect(error).toMatchObject({
      code: 'unreadable',
      message: expect.stringContaining('application/octet-stream is not a web page or a readable document'),
    });
  });

  it('is invalid_url for something that is not a URL', async () => {
    expect(await failureOf(scraper().scrape('not a url'))).toMatchObject({
      code: 'invalid_url',
      message: 'could not fetch not a url: the page URL is not an absolute URL',
    });
  });

  it('is a timeout when the page never finishes', async () => {
    files.hang('/slow', { contentType: 'text/html' });
    expect(await failureOf(scraper({ timeoutMs: 300 }, files.caCert).scrape(files.url('/slow')))).toMatchObject({ code: 'timeout' });
  });

  it("rethrows the caller's abort reason", async () => {
    files.hang('/stuck', { contentType: 'text/html', firstChunk: null });
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    const scrape = scraper({}, files.caCert).scrape(files.url('/stuck'), controller.signal);
    await files.waitForRequest('/stuck');
    controller.abort(reason);
    await expect(scrape).rejects.toBe(reason);
  });
});
