export { errorCodeOf } from './error-code';
export { decodeHtmlEntities, htmlSnippetToText } from './html-text';
export { MAX_SEARCH_RESPONSE_BYTES } from './search-http';
export { MAX_WEB_SEARCH_RESULTS, type WebSearchResult } from './search-results';
export {
  BraveSearchProvider,
  createWebSearchProvider,
  SearxngSearchProvider,
  TavilySearchProvider,
  type WebSearchProvider,
  type WebSearchQuery,
} from './web-search';
export { WebToolError, type WebToolErrorCode } from './web-tool-error';
export {
  DEFAULT_BRAVE_SEARCH_BASE_URL,
  DEFAULT_SCRAPE_MAX_BYTES,
  DEFAULT_SCRAPE_MAX_CHARS,
  DEFAULT_TAVILY_BASE_URL,
  DEFAULT_WEB_TOOL_TIMEOUT_MS,
  WEB_SEARCH_PROVIDERS,
  type WebSearchProviderName,
  type WebToolSettings,
} from './web-tool-settings';
