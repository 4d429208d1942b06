import {
  DEFAULT_SCRAPE_MAX_BYTES,
  DEFAULT_SCRAPE_MAX_CHARS,
  DEFAULT_WEB_TOOL_TIMEOUT_MS,
  htmlSnippetToText,
  WebToolError,
  type WebToolErrorCode,
  type WebToolSettings,
} from '@waggle/providers';
import { AttachmentFetcher, AttachmentFetchError, type AttachmentFetchErrorCode, type FetchWording } from './attachment-fetcher';
import { detectDocumentType, mediaTypeOf } from './document-type';
import { DocumentReadError, extractDocumentText, htmlToMarkdown } from './extract-text';
import { decodeText } from './text-rendering';

export interface WebScraperOptions {
  /** Largest page body read, in bytes (default 5 MiB); a larger one is `too_large`. */
  maxBytes?: number;
  /** Characters of text kept (default 20,000); the rest is cut and the page marked `truncated`. */
  maxChars?: number;
  /** Time cap of one scrape, redirects and body included (default 30 s). */
  timeoutMs?: number;
  /** Redirects followed at most (default 3). */
  maxRedirects?: number;
  /** Hosts, IP addresses and CIDR ranges that may be reached although they are not public (SCRAPE_URL_ALLOWLIST). */
  allowlist?: string | readonly string[];
  /** Extra trust anchors (PEM) for tests with their own certificate authority; verification stays on. */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
}

/** A page as a `scrape` step outputs it. */
export interface ScrapedPage {
  /** The URL as asked (not the redirect target, which may carry a site's own tokens). */
  url: string;
  /** The HTML `<title>` as plain text; null for other documents or a page without one. */
  title: string | null;
  /** Readable text: HTML as Markdown without scripts, styles or page chrome; text and Markdown as they are; PDF, DOCX, CSV and XLSX as the documents library renders them. */
  content: string;
  /** The media type the site declared, if any. */
  content_type: string | null;
  /** Whether `content` was cut at the character cap. */
  truncated: boolean;
}

const FETCH_CODES: Record<Exclude<AttachmentFetchErrorCode, 'aborted'>, WebToolErrorCode> = {
  invalid_url: 'invalid_url',
  refused: 'refused',
  // Following a fourth redirect is refused the way a private address is: by the guard's rules.
  too_many_redirects: 'refused',
  too_large: 'too_large',
  timeout: 'timeout',
  http_status: 'http_status',
  network: 'network',
};

const PAGE_WORDING: FetchWording = { url: 'page URL', urlWord: 'url_word_page', hostWord: 'host_word_page' };
const HTML_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,text/markdown;q=0.8,*/*;q=0.5';

/** The text of the first `<title>`, entities decoded; null when there is none or it is blank. */
export function htmlTitle(html: string): string | null {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  if (!match) return null;
  const title = htmlSnippetToText(match[1]);
  return title === '' ? null : title;
}

/** `text` cut to `maxChars` characters, never between the two halves of a surrogate pair. */
function capText(text: string, maxChars: number): { content: string; truncated: boolean } {
  if (text.length <= maxChars) return { content: text, truncated: false };
  let end = maxChars;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { content: text.slice(0, end), truncated: true };
}

/**
 * The `scrape` provider tool: fetches a page through the project's SSRF guard (AttachmentFetcher:
 * https only, the dialled address checked at connect time so a name resolving to a private,
 * loopback or metadata address is refused unless allowlisted, at most 3 redirects, size and time
 * caps) and turns it into readable text with the documents library (turndown for HTML). It lives
 * here, not in @waggle/providers beside web search, because a platform library may not import a
 * feature library such as this one. Failures are WebToolError; a cancelled `signal` rethrows its
 * reason.
 */
export class WebScraper {
  readonly maxChars: number;
  private readonly fetcher: AttachmentFetcher;

  constructor(options: WebScraperOptions = {}) {
    this.maxChars = options.maxChars ?? DEFAULT_SCRAPE_MAX_CHARS;
    this.fetcher = new AttachmentFetcher({
      maxBytes: options.maxBytes ?? DEFAULT_SCRAPE_MAX_BYTES,
      timeoutMs: options.timeoutMs ?? DEFAULT_WEB_TOOL_TIMEOUT_MS,
      maxRedirects: options.maxRedirects,
      allowlist: options.allowlist,
      allowlistSetting: 'SCRAPE_URL_ALLOWLIST',
      ca: options.ca,
      wording: PAGE_WORDING,
      userAgent: 'Waggle-Scraper/1',
      accept: HTML_ACCEPT,
    });
  }

  /** A scraper with an app's validated settings (WithWebTools); `ca` only for tests. */
  static fromSettings(settings: WebToolSettings, extra: Pick<WebScraperOptions, 'ca'> = {}): WebScraper {
    return new WebScraper({
      maxBytes: settings.SCRAPE_MAX_BYTES,
      maxChars: settings.SCRAPE_MAX_CHARS,
      timeoutMs: settings.WEB_TOOL_TIMEOUT_MS,
      allowlist: settings.SCRAPE_URL_ALLOWLIST,
      ca: extra.ca,
    });
  }

  async scrape(url: string, signal?: AbortSignal): Promise<ScrapedPage> {
    let fetched;
    try {
      fetched = await this.fetcher.fetch(url, { signal });
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      if (error instanceof AttachmentFetchError) {
        const code = error.code === 'aborted' ? 'network' : FETCH_CODES[error.code];
        throw new WebToolError(code, error.message, { status: error.status, cause: error });
      }
      throw error;
    }
    const contentType = mediaTypeOf(fetched.contentType);
    const { type } = await detectDocumentType(fetched.bytes, {
      fileName: fetched.fileName,
      url: [fetched.finalUrl, url],
      contentType: fetched.contentType,
    });
    let title: string | null = null;
    let text: string;
    try {
      switch (type) {
        case 'html': {
          const html = decodeText(fetched.bytes);
          title = htmlTitle(html);
          text = htmlToMarkdown(html, { dropPageChrome: true });
          break;
        }
        case 'txt':
        case 'md':
          text = decodeText(fetched.bytes);
          break;
        case 'pdf':
        case 'docx':
        case 'csv':
        case 'xlsx':
          text = await extractDocumentText(fetched.bytes, type, contentType);
          break;
        default:
          throw new WebToolError(
            'unreadable',
            `could not read ${url}: ${contentType ?? 'the content'} is not a web page or a readable document`,
          );
      }
    } catch (error) {
      if (error instanceof DocumentReadError)
        throw new WebToolError('unreadable', `could not read ${url}: ${error.message}`, { cause: error });
      throw error;
    }
    return { url, title, ...capText(text, this.maxChars), content_type: contentType };
  }

  /** Closes the scraper's connections. */
  async close(): Promise<void> {
    await this.fetcher.close();
  }
}
