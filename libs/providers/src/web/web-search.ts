import { endpointUrl, searchJson } from './search-http';
import { mapResults, resultCount, type WebSearchResult } from './search-results';
import { nestedMessage } from '@waggle/errors';
import { WebToolError } from './web-tool-error';
import {
  DEFAULT_BRAVE_SEARCH_BASE_URL,
  DEFAULT_TAVILY_BASE_URL,
  DEFAULT_WEB_TOOL_TIMEOUT_MS,
  WEB_SEARCH_PROVIDERS,
  type WebToolSettings,
} from './web-tool-settings';

export interface WebSearchQuery {
  query: string;
  /** How many results to return at most (1–20; a provider may find fewer). */
  numResults: number;
  /** Two-letter country code the results are for (Brave's `country`); providers without one ignore it. */
  country?: string;
  /** Language or locale code (`en`, `de-CH`): SearXNG's `language`; unset, the instance's default. */
  language?: string;
  /** Cancels the call; its reason is rethrown as it is. */
  signal?: AbortSignal;
}

/**
 * The one interface `web_search` steps call, whatever API is configured. `search` answers at
 * most `numResults` results with plain-text snippets, or throws WebToolError.
 */
export interface WebSearchProvider {
  /** `searxng`, `brave` or `tavily`: recorded with the step. */
  readonly name: string;
  search(query: WebSearchQuery): Promise<WebSearchResult[]>;
}

const USER_AGENT = 'Waggle-WebSearch/1';

/**
 * A self-hosted SearXNG's JSON API (`GET /search?q=…&format=json`). It has no result count:
 * one page (about 20) comes back and is cut to `numResults`.
 */
export class SearxngSearchProvider implements WebSearchProvider {
  readonly name = 'searxng';

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number = DEFAULT_WEB_TOOL_TIMEOUT_MS,
  ) {}

  async search(query: WebSearchQuery): Promise<WebSearchResult[]> {
    const text = query.query.trim();
    if (text === '') return [];
    const url = endpointUrl(this.baseUrl, '/search', 'SEARXNG_URL');
    url.searchParams.set('q', text);
    url.searchParams.set('format', 'json');
    if (query.language) url.searchParams.set('language', query.language);
    let answer: unknown;
    try {
      answer = await searchJson({
        provider: 'SearXNG',
        url,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': USER_AGENT },
        timeoutMs: this.timeoutMs,
        signal: query.signal,
      });
    } catch (error) {
      // SearXNG answers 403 to a format its settings.yml does not enable: say which setting.
      if (error instanceof WebToolError && error.status === 403) {
        throw new WebToolError('provider_error', nestedMessage({ detail: 'web_searxng_json_format', params: { reason: error.reason } }), {
          status: 403,
        });
      }
      throw error;
    }
    return mapResults((answer as { results?: unknown } | null)?.results, resultCount(query.numResults), (entry) => ({
      title: entry.title,
      url: entry.url,
      snippet: entry.content,
    }));
  }
}

/** The Brave Search API's web search (`GET /res/v1/web/search`, key in `X-Subscription-Token`). */
export class BraveSearchProvider implements WebSearchProvider {
  readonly name = 'brave';

  constructor(
    private readonly apiKey: string,
    private readonly baseUrl: string = DEFAULT_BRAVE_SEARCH_BASE_URL,
    private readonly timeoutMs: number = DEFAULT_WEB_TOOL_TIMEOUT_MS,
  ) {}

  async search(query: WebSearchQuery): Promise<WebSearchResult[]> {
    const text = query.query.trim();
    if (text === '') return [];
    const count = resultCount(query.numResults);
    const url = endpointUrl(this.baseUrl, '/res/v1/web/search', 'BRAVE_SEARCH_BASE_URL');
    url.searchParams.set('q', text);
    url.searchParams.set('count', String(count));
    if (query.country) url.searchParams.set('country', query.country.toUpperCase());
    const answer = await searchJson({
      provider: 'Brave Search',
      url,
      method: 'GET',
      headers: { accept: 'application/json', 'x-subscription-token': this.apiKey, 'user-agent': USER_AGENT },
      timeoutMs: this.timeoutMs,
      signal: query.signal,
    });
    const web = (answer as { web?: { results?: unknown } } | null)?.web;
    return mapResults(web?.results, count, (entry) => ({ title: entry.title, url: entry.url, snippet: entry.description }));
  }
}

/**
 * Tavily's search (`POST /search`, bearer key). Its `country` takes country names, not codes,
 * so the two-letter `country` is not passed on.
 */
export class TavilySearchProvider implements WebSearchProvider {
  readonly name = 'tavily';

  constructor(
    private readonly apiKey: string,
    private readonly baseUrl: string = DEFAULT_TAVILY_BASE_URL,
    private readonly timeoutMs: number = DEFAULT_WEB_TOOL_TIMEOUT_MS,
  ) {}

  async search(query: WebSearchQuery): Promise<WebSearchResult[]> {
    const text = query.query.trim();
    if (text === '') return [];
    const count = resultCount(query.numResults);
    const answer = await searchJson({
      provider: 'Tavily',
      url: endpointUrl(this.baseUrl, '/search', 'TAVILY_BASE_URL'),
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${this.apiKey}`,
        'user-agent': USER_AGENT,
      },
      body: JSON.stringify({ query: text, max_results: count, search_depth: 'basic', topic: 'general' }),
      timeoutMs: this.timeoutMs,
      signal: query.signal,
    });
    return mapResults((answer as { results?: unknown } | null)?.results, count, (entry) => ({
      title: entry.title,
      url: entry.url,
      snippet: entry.content,
    }));
  }
}

function required(value: string | undefined, variable: string, provider: string): string {
  if (value === undefined || value.trim() === '') {
    throw new WebToolError('not_configured', nestedMessage({ detail: 'web_search_variable_missing', params: { provider, variable } }));
  }
  return value.trim();
}

/**
 * The search provider the settings choose, or null when `WEB_SEARCH_PROVIDER` is `none` or
 * unset (the engine fails a `web_search` step with `not_configured` then). A chosen provider
 * without its URL or key is a WebToolError(`not_configured`) naming the missing variable, so an
 * app that builds its provider at start-up refuses to start.
 */
export function createWebSearchProvider(settings: WebToolSettings): WebSearchProvider | null {
  const choice = settings.WEB_SEARCH_PROVIDER ?? 'none';
  const timeoutMs = settings.WEB_TOOL_TIMEOUT_MS ?? DEFAULT_WEB_TOOL_TIMEOUT_MS;
  switch (choice) {
    case 'none':
      return null;
    case 'searxng':
      return new SearxngSearchProvider(required(settings.SEARXNG_URL, 'SEARXNG_URL', choice), timeoutMs);
    case 'brave':
      return new BraveSearchProvider(
        required(settings.BRAVE_SEARCH_API_KEY, 'BRAVE_SEARCH_API_KEY', choice),
        settings.BRAVE_SEARCH_BASE_URL || DEFAULT_BRAVE_SEARCH_BASE_URL,
        timeoutMs,
      );
    case 'tavily':
      return new TavilySearchProvider(
        required(settings.TAVILY_API_KEY, 'TAVILY_API_KEY', choice),
        settings.TAVILY_BASE_URL || DEFAULT_TAVILY_BASE_URL,
        timeoutMs,
      );
    default:
      throw new WebToolError(
        'not_configured',
        nestedMessage({ detail: 'web_search_provider_unknown', params: { providers: WEB_SEARCH_PROVIDERS.join(', ') } }),
      );
  }
}
