import { errorMessage, WaggleException, type NestedMessage } from '@waggle/errors';
import { BraveSearchProvider, createWebSearchProvider, SearxngSearchProvider, TavilySearchProvider } from './web-search';
import { WebToolError } from './web-tool-error';

describe('createWebSearchProvider', () => {
  it('answers null when no provider is chosen', () => {
    expect(createWebSearchProvider({})).toBeNull();
    expect(createWebSearchProvider({ WEB_SEARCH_PROVIDER: 'none', BRAVE_SEARCH_API_KEY: 'key' })).toBeNull();
  });

  it('builds the chosen provider', () => {
    expect(createWebSearchProvider({ WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: 'http://searxng:8080' })).toBeInstanceOf(
      SearxngSearchProvider,
    );
    expect(createWebSearchProvider({ WEB_SEARCH_PROVIDER: 'brave', BRAVE_SEARCH_API_KEY: 'key' })?.name).toBe('brave');
    expect(createWebSearchProvider({ WEB_SEARCH_PROVIDER: 'brave', BRAVE_SEARCH_API_KEY: 'key' })).toBeInstanceOf(BraveSearchProvider);
    expect(createWebSearchProvider({ WEB_SEARCH_PROVIDER: 'tavily', TAVILY_API_KEY: 'key' })).toBeInstanceOf(TavilySearchProvider);
  });

  it('refuses a chosen provider without its URL or key, naming the variable and never a value', () => {
    const failure = (settings: Parameters<typeof createWebSearchProvider>[0]) => {
      try {
        createWebSearchProvider(settings);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const brave = failure({ WEB_SEARCH_PROVIDER: 'brave', BRAVE_SEARCH_API_KEY: '  ' });
    expect(brave).toBeInstanceOf(WebToolError);
    expect(brave).toMatchObject({ code: 'not_configured', message: 'WEB_SEARCH_PROVIDER is brave but BRAVE_SEARCH_API_KEY is not set' });
    expect(errorMessage((brave as WebToolError).reason as NestedMessage, 'es')).toBe(
      'WEB_SEARCH_PROVIDER es brave pero BRAVE_SEARCH_API_KEY no está definida',
    );
    expect(failure({ WEB_SEARCH_PROVIDER: 'searxng' })).toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('SEARXNG_URL'),
    });
    expect(failure({ WEB_SEARCH_PROVIDER: 'tavily' })).toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('TAVILY_API_KEY'),
    });
    expect(failure({ WEB_SEARCH_PROVIDER: 'bing' as never })).toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('searxng, brave, tavily, none'),
    });
  });

  it('answers an empty query with no results, without calling the API', async () => {
    const provider = createWebSearchProvider({ WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: 'http://127.0.0.1:9/' });
    await expect(provider?.search({ query: '   ', numResults: 5 })).resolves.toEqual([]);
  });

  it('refuses a base URL that is not http(s) when searching', async () => {
    const provider = new SearxngSearchProvider('ftp://searxng.example');
    await expect(provider.search({ query: 'herons', numResults: 5 })).rejects.toMatchObject({
      code: 'not_configured',
      message: 'SEARXNG_URL must be an http(s) URL',
    });
  });

  it("says why in the workspace's language too, through web_tool_failed", async () => {
    const provider = new SearxngSearchProvider('ftp://searxng.example');
    const error = (await provider.search({ query: 'herons', numResults: 5 }).catch((failure: unknown) => failure)) as WebToolError;
    const failed = new WaggleException('upstream_request_failed', { detail: 'web_tool_failed', params: { reason: error.reason } });
    expect(failed.message).toBe('SEARXNG_URL must be an http(s) URL');
    expect(failed.messageIn('es')).toBe('La herramienta web falló: SEARXNG_URL debe ser una URL http(s)');
  });
});
