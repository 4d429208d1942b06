import { BaseEnv, loadConfig, WithWebTools } from '@waggle/platform';
import type { WebToolSettings } from '@waggle/providers';
import { htmlToMarkdown } from './extract-text';
import { htmlTitle, WebScraper } from './web-scraper';

const PAGE = [
  '<!doctype html><html><head><title> Herons &amp; egrets </title><style>p { color: red }</style></head>',
  '<body><header>Site name</header><nav><a href="/">Home</a></nav>',
  '<main><h1>Grey heron</h1><p>A <strong>wading</strong> bird.</p></main>',
  "<script>document.write('never')</script><noscript>enable scripts</noscript><footer>© the site</footer></body></html>",
].join('');

describe('htmlTitle', () => {
  it('is the first title as plain text, or null', () => {
    expect(htmlTitle(PAGE)).toBe('Herons & egrets');
    expect(htmlTitle('<TITLE lang="en">One</TITLE><title>Two</title>')).toBe('One');
    expect(htmlTitle('<title>  </title>')).toBeNull();
    expect(htmlTitle('<p>no title</p>')).toBeNull();
  });
});

describe('htmlToMarkdown of a scraped page', () => {
  it('keeps the content and drops scripts, styles and the page chrome', () => {
    expect(htmlToMarkdown(PAGE, { dropPageChrome: true })).toBe('# Grey heron\n\nA **wading** bird.');
  });

  it("keeps a document's header and footer without the option", () => {
    expect(htmlToMarkdown(PAGE)).toContain('Site name');
    expect(htmlToMarkdown(PAGE)).not.toContain('never');
  });
});

describe('WebScraper.fromSettings', () => {
  it('takes the validated env of WithWebTools as its settings', async () => {
    const settings: WebToolSettings = loadConfig(WithWebTools(BaseEnv), { SCRAPE_MAX_CHARS: '500', SCRAPE_URL_ALLOWLIST: '127.0.0.1' });
    const scraper = WebScraper.fromSettings(settings);
    expect(scraper.maxChars).toBe(500);
    await scraper.close();
  });

  it('names SCRAPE_URL_ALLOWLIST when an entry is invalid', () => {
    expect(() => WebScraper.fromSettings({ SCRAPE_URL_ALLOWLIST: 'not a host!' })).toThrow(/SCRAPE_URL_ALLOWLIST/);
  });
});
