import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { listen, readBody, sendJson } from './http-io';

/** One request as the fake saw it (search calls and page fetches alike). */
export interface FakeSearchRequestRecord {
  method: string;
  /** The path without the query string. */
  path: string;
  /** The query string's parameters (the last value of a repeated one). */
  query: Record<string, string>;
  /** Kept whole: the keys tests send are fake, and a test checks the key header arrived. */
  headers: IncomingHttpHeaders;
  /** A POST's JSON body (Tavily), parsed; null otherwise. */
  body: unknown;
  /** Which protocol answered: a search API, a page, or neither (404). */
  kind: 'searxng' | 'brave' | 'tavily' | 'page' | 'other';
}

export interface FakeSearchServerOptions {
  /** Where result URLs point: `{pagesBaseUrl}/pages/{slug}-{i}`. Default: this server's own URL. */
  pagesBaseUrl?: string;
  /** The Brave key accepted in `X-Subscription-Token` (default `fake-brave-key`); any other answers 401. */
  braveApiKey?: string;
  /** The Tavily key accepted as `Authorization: Bearer …` (default `fake-tavily-key`); any other answers 401. */
  tavilyApiKey?: string;
  /** Results a SearXNG query answers (it has no count parameter; default 10). */
  searxngResults?: number;
  /** Serve over HTTPS with this certificate (e.g. createTestCertificates() of @waggle/testing). */
  tls?: { key: string; cert: string };
  /** Bytes of the body a `huge` page sends (default 1 MiB). */
  hugePageBytes?: number;
}

const MAX_RESULTS = 20;
const MAX_BODY_BYTES = 64 * 1024;

/** The query as a URL path segment: lower-case words joined by `-` (`[fail]` and punctuation dropped). */
export function searchSlug(query: string): string {
  const slug = query
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return slug === '' ? 'query' : slug;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A search API double for tests and local runs, speaking three real protocols on one port:
 * SearXNG's JSON API (`GET /search?q=…&format=json`), Brave Search's web search
 * (`GET /res/v1/web/search`, `X-Subscription-Token`) and Tavily's (`POST /search`, bearer key).
 * Answers are deterministic: query `q` gives results `{pagesBaseUrl}/pages/{slug(q)}-{i}` (i from
 * 1), and the fake serves those pages itself as small HTML documents (a `<title>`, a heading, a
 * paragraph naming the query and index, page chrome and a `<script>` a scraper must drop), so a
 * whole search-then-scrape workflow runs against it. Hooks: a query containing `[fail]` answers
 * 500; a page slug containing `broken-at-N` answers 404 for page N only, any other `broken` 404 for every page, `binary` answers bytes that are no document,
 * `huge` a page larger than any sane scrape cap; a wrong Brave or Tavily key answers 401.
 */
export class FakeSearchServer {
  private readonly records: FakeSearchRequestRecord[] = [];
  /** Queries seen, by slug, so a page names the query as it was asked. */
  private readonly queriesBySlug = new Map<string, string>();
  private server?: Server;
  private baseUrl?: string;
  private readonly braveApiKey: string;
  private readonly tavilyApiKey: string;
  private readonly searxngResults: number;
  private readonly hugePageBytes: number;

  constructor(private readonly options: FakeSearchServerOptions = {}) {
    this.braveApiKey = options.braveApiKey ?? 'fake-brave-key';
    this.tavilyApiKey = options.tavilyApiKey ?? 'fake-tavily-key';
    this.searxngResults = options.searxngResults ?? 10;
    this.hugePageBytes = options.hugePageBytes ?? 1024 * 1024;
  }

  /** The base URL `start` answered (SEARXNG_URL, BRAVE_SEARCH_BASE_URL and TAVILY_BASE_URL alike). */
  get url(): string {
    if (!this.baseUrl) throw new Error('FakeSearchServer is not started');
    return this.baseUrl;
  }

  /** Every request so far, oldest first. */
  get requests(): readonly FakeSearchRequestRecord[] {
    return [...this.records];
  }

  /** Search API calls received (any protocol, answered or refused); page fetches do not count. */
  searchCount(): number {
    return this.records.filter((record) => record.kind === 'searxng' || record.kind === 'brave' || record.kind === 'tavily').length;
  }

  clearRequests(): void {
    this.records.length = 0;
  }

  /** The URL of result `index` (from 1) for `query`, as the fake lists it. */
  pageUrl(query: string, index: number): string {
    return `${(this.options.pagesBaseUrl ?? this.url).replace(/\/+$/, '')}/pages/${searchSlug(query)}-${index}`;
  }

  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) throw new Error('FakeSearchServer is already started');
    const listener = (request: IncomingMessage, response: ServerResponse) => void this.handle(request, response);
    const server = this.options.tls
      ? createHttpsServer({ key: this.options.tls.key, cert: this.options.tls.cert }, listener)
      : createHttpServer(listener);
    this.server = server;
    this.baseUrl = `${this.options.tls ? 'https' : 'http'}://${await listen(server, port, host, 'fake search server')}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.baseUrl = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const parsed = new URL(request.url ?? '/', 'http://fake-search');
    const method = request.method ?? 'GET';
    const record: FakeSearchRequestRecord = {
      method,
      path: parsed.pathname,
      query: Object.fromEntries(parsed.searchParams),
      headers: request.headers,
      body: null,
      kind: 'other',
    };
    this.records.push(record);
    try {
      if (method === 'GET' && (parsed.pathname === '/search' || parsed.pathname === '/')) {
        record.kind = 'searxng';
        this.answerSearxng(parsed.searchParams, response);
      } else if (method === 'GET' && parsed.pathname === '/res/v1/web/search') {
        record.kind = 'brave';
        this.answerBrave(parsed.searchParams, request.headers, response);
      } else if (method === 'POST' && parsed.pathname === '/search') {
        record.kind = 'tavily';
        const text = await readBody(request, MAX_BODY_BYTES);
        try {
          record.body = JSON.parse(text) as unknown;
        } catch {
          record.body = null;
        }
        this.answerTavily(record.body, request.headers, response);
      } else if (method === 'GET' && parsed.pathname.startsWith('/pages/')) {
        record.kind = 'page';
        this.answerPage(decodeURIComponent(parsed.pathname.slice('/pages/'.length)), response);
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    } catch {
      if (!response.headersSent) response.writeHead(400, { 'content-type': 'text/plain' }).end('bad request');
    }
  }

  private results(query: string, count: number): Array<{ title: string; url: string; text: string; index: number }> {
    this.queriesBySlug.set(searchSlug(query), query);
    return Array.from({ length: Math.max(0, Math.min(MAX_RESULTS, count)) }, (_, offset) => {
      const index = offset + 1;
      return { index, title: `Result ${index} for ${query}`, url: this.pageUrl(query, index), text: `Page ${index} about ${query}.` };
    });
  }

  private answerSearxng(params: URLSearchParams, response: ServerResponse): void {
    const query = params.get('q') ?? '';
    // A real instance answers 403 to a format its settings do not enable.
    if (params.get('format') !== 'json') return void response.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden');
    if (query.includes('[fail]'))
      return void response.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal Server Error</h1>');
    const results = this.results(query, this.searxngResults).map((result) => {
      const { protocol, host, pathname } = new URL(result.url);
      return {
        url: result.url,
        title: result.title,
        content: result.text,
        engine: 'fake',
        engines: ['fake'],
        // Python's urlparse() of the URL, as SearXNG lists it.
        parsed_url: [protocol.slice(0, -1), host, pathname, '', '', ''],
        template: 'default.html',
        positions: [result.index],
        score: 1 / result.index,
        category: 'general',
      };
    });
    sendJson(response, 200, {
      query,
      number_of_results: results.length,
      results,
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    });
  }

  private answerBrave(params: URLSearchParams, headers: IncomingHttpHeaders, response: ServerResponse): void {
    if (headers['x-subscription-token'] !== this.braveApiKey) {
      return sendJson(response, 401, {
        type: 'ErrorResponse',
        error: { id: 'fake', status: 401, code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' },
        time: Math.floor(Date.now() / 1000),
      });
    }
    const query = params.get('q') ?? '';
    if (query.includes('[fail]')) {
      return sendJson(response, 500, {
        type: 'ErrorResponse',
        error: { id: 'fake', status: 500, code: 'INTERNAL_ERROR', detail: 'fake failure' },
      });
    }
    const count = Number(params.get('count') ?? 20);
    const results = this.results(query, Number.isFinite(count) ? count : 20).map((result) => ({
      type: 'search_result',
      title: `Result ${result.index} for <strong>${escapeHtml(query)}</strong>`,
      url: result.url,
      description: `Page ${result.index} about <strong>${escapeHtml(query)}</strong> &amp; more.`,
      is_source_local: false,
      is_source_both: false,
      language: 'en',
      family_friendly: true,
    }));
    sendJson(response, 200, {
      type: 'search',
      query: { original: query, more_results_available: false, country: params.get('country') ?? 'us' },
      web: { type: 'search', results, family_friendly: true },
    });
  }

  private answerTavily(body: unknown, headers: IncomingHttpHeaders, response: ServerResponse): void {
    if (headers.authorization !== `Bearer ${this.tavilyApiKey}`)
      return sendJson(response, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
    const { query, max_results: maxResults } = (body ?? {}) as { query?: unknown; max_results?: unknown };
    if (typeof query !== 'string') return sendJson(response, 400, { detail: { error: 'query is required' } });
    if (query.includes('[fail]')) return sendJson(response, 500, { detail: { error: 'fake failure' } });
    const count = typeof maxResults === 'number' ? maxResults : 5;
    const results = this.results(query, count).map((result) => ({
      title: result.title,
      url: result.url,
      content: result.text,
      score: 1 / result.index,
      raw_content: null,
    }));
    sendJson(response, 200, { query, answer: null, images: [], results, response_time: 0.01 });
  }

  private answerPage(slugAndIndex: string, response: ServerResponse): void {
    // `broken-at-N` in the query breaks only its page N; any other `broken` breaks every page.
    const brokenAt = /(?:^|-)broken-at-(\d+)(?:-|$)/.exec(slugAndIndex.slice(0, slugAndIndex.lastIndexOf('-')));
    if (brokenAt) {
      if (slugAndIndex.slice(slugAndIndex.lastIndexOf('-') + 1) === brokenAt[1])
        return void response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    } else if (slugAndIndex.includes('broken'))
      return void response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    if (slugAndIndex.includes('binary')) {
      // Bytes of no document format a scraper reads (a gzip stream's header, then noise).
      const bytes = Buffer.alloc(512);
      bytes.set([0x1f, 0x8b, 0x08, 0x00]);
      for (let i = 4; i < bytes.length; i++) bytes[i] = (i * 37) % 256;
      return void response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length }).end(bytes);
    }
    if (slugAndIndex.includes('huge')) {
      const filler = `<p>${'Lorem ipsum dolor sit amet. '.repeat(36)}</p>\n`;
      const body = `<!doctype html><html><head><title>Huge page</title></head><body>${filler.repeat(Math.ceil(this.hugePageBytes / filler.length))}</body></html>`;
      return void response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) })
        .end(body);
    }
    const match = /^(.*)-(\d+)$/.exec(slugAndIndex);
    if (!match) return void response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    const [, slug, index] = match;
    const query = this.queriesBySlug.get(slug) ?? slug.replace(/-/g, ' ');
    const title = `Result ${index} for ${query}`;
    const html = [
      '<!doctype html>',
      '<html lang="en">',
      `<head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>body { font-family: sans-serif; }</style></head>`,
      '<body>',
      '<header><a href="/">Fake Search Site</a></header>',
      '<nav><a href="/pages/home-1">Home</a> | <a href="/pages/about-1">About</a></nav>',
      '<main>',
      `<h1>${escapeHtml(title)}</h1>`,
      `<p>This is result number ${index} for the query &quot;${escapeHtml(query)}&quot;.</p>`,
      '</main>',
      "<script>document.write('SCRIPT TEXT MUST NOT BE SCRAPED');</script>",
      '<footer>Fake footer: all rights reserved</footer>',
      '</body>',
      '</html>',
    ].join('\n');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) }).end(html);
  }
}
