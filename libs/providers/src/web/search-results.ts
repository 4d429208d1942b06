import { htmlSnippetToText } from './html-text';

export interface WebSearchResult {
  title: string;
  url: string;
  /** Plain text: the provider's highlighting tags are dropped and its entities decoded. */
  snippet: string;
}

/** Brave's `count` and Tavily's `max_results` stop at 20, and so does the `web_search` step. */
export const MAX_WEB_SEARCH_RESULTS = 20;

/** `numResults` as a provider may be asked for it: a whole number from 1 to 20. */
export function resultCount(numResults: number): number {
  if (!Number.isFinite(numResults)) return MAX_WEB_SEARCH_RESULTS;
  return Math.min(MAX_WEB_SEARCH_RESULTS, Math.max(1, Math.floor(numResults)));
}

function isWebUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Results as a provider listed them, mapped by `pick` to title, URL and snippet fields, cut to
 * `limit`. An entry without an http(s) URL is skipped: the next step would scrape it.
 */
export function mapResults(
  entries: unknown,
  limit: number,
  pick: (entry: Record<string, unknown>) => { title: unknown; url: unknown; snippet: unknown },
): WebSearchResult[] {
  if (!Array.isArray(entries)) return [];
  const results: WebSearchResult[] = [];
  for (const entry of entries) {
    if (results.length >= limit) break;
    if (entry === null || typeof entry !== 'object') continue;
    const { title, url, snippet } = pick(entry as Record<string, unknown>);
    if (typeof url !== 'string' || !isWebUrl(url)) continue;
    results.push({
      title: typeof title === 'string' ? htmlSnippetToText(title) : '',
      url,
      snippet: typeof snippet === 'string' ? htmlSnippetToText(snippet) : '',
    });
  }
  return results;
}
