/**
 * The provider tools' settings as an app's validated env class holds them (platform's
 * `WithWebTools` declares each variable; this library may not import platform, so the shape is
 * restated here and the env object is passed in as it is). Every field but the provider choice
 * has a default, so a test can pass only what it changes.
 */
export const WEB_SEARCH_PROVIDERS = ['searxng', 'brave', 'tavily', 'none'] as const;

export type WebSearchProviderName = (typeof WEB_SEARCH_PROVIDERS)[number];

export interface WebToolSettings {
  /** Which search API `web_search` calls; `none` (the default) leaves web search unconfigured. */
  readonly WEB_SEARCH_PROVIDER?: WebSearchProviderName;
  /** Base URL of a SearXNG instance whose `json` format is enabled (`search.formats` in its settings.yml). */
  readonly SEARXNG_URL?: string;
  readonly BRAVE_SEARCH_API_KEY?: string;
  /** The Brave Search API's origin (default the real one); tests point it at the fake search server. */
  readonly BRAVE_SEARCH_BASE_URL?: string;
  readonly TAVILY_API_KEY?: string;
  /** The Tavily API's origin (default the real one). */
  readonly TAVILY_BASE_URL?: string;
  /** Time cap of one search call and of one scrape (redirects and body included), in ms. */
  readonly WEB_TOOL_TIMEOUT_MS?: number;
  /** Largest page body a scrape reads, in bytes. */
  readonly SCRAPE_MAX_BYTES?: number;
  /** Characters of readable text a scrape keeps; the rest is cut and the page marked truncated. */
  readonly SCRAPE_MAX_CHARS?: number;
  /** Hosts, IP addresses and CIDR ranges a scrape may reach although they are not public (as CALLBACK_URL_ALLOWLIST). */
  readonly SCRAPE_URL_ALLOWLIST?: string;
}

export const DEFAULT_BRAVE_SEARCH_BASE_URL = 'https://api.search.brave.com';
export const DEFAULT_TAVILY_BASE_URL = 'https://api.tavily.com';
export const DEFAULT_WEB_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_SCRAPE_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_SCRAPE_MAX_CHARS = 20_000;
