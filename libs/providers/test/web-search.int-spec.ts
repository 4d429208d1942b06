import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeSearchServer } from '@waggle/fake-provider';
import { freePort } from '@waggle/testing';
import { createWebSearchProvider, WebToolError, type WebSearchProvider, type WebToolSettings } from '../src';

/** Every search provider against the fake search server, over real HTTP on loopback. */
describe('web search providers against the fake search server', () => {
  const fake = new FakeSearchServer({ braveApiKey: 'brave-secret-key-1', tavilyApiKey: 'tvly-secret-key-2' });
  let base: string;

  beforeAll(async () => {
    base = await fake.start();
  });
  afterAll(() => fake.stop());
  beforeEach(() => fake.clearRequests());

  const providers: Array<[string, () => WebToolSettings]> = [
    ['searxng', () => ({ WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: base })],
    ['brave', () => ({ WEB_SEARCH_PROVIDER: 'brave', BRAVE_SEARCH_API_KEY: 'brave-secret-key-1', BRAVE_SEARCH_BASE_URL: base })],
    ['tavily', () => ({ WEB_SEARCH_PROVIDER: 'tavily', TAVILY_API_KEY: 'tvly-secret-key-2', TAVILY_BASE_URL: base })],
  ];

  const providerFor = (settings: WebToolSettings): WebSearchProvider => {
    const provider = createWebSearchProvider(settings);
    if (!provider) throw new Error('no provider configured');
    return provider;
  };

  const failureOf = async (promise: Promise<unknown>): Promise<WebToolError> => {
    try {
      await promise;
    } catch (error) {
      if (error instanceof WebToolError) return error;
      throw error;
    }
    throw new Error('the search did not fail');
  };

  describe.each(providers)('%s', (name, settings) => {
    it('answers numResults results with their page URLs, titles and plain-text snippets', async () => {
      const provider = providerFor(settings());
      expect(provider.name).toBe(name);
      const results = await provider.search({ query: 'grey heron', numResults: 3 });
      expect(results).toEqual(
        [1, 2, 3].map((index) => ({
          title: `Result ${index} for grey heron`,
          url: `${base}/pages/grey-heron-${index}`,
          snippet: name === 'brave' ? `Page ${index} about grey heron & more.` : `Page ${index} about grey heron.`,
        })),
      );
      expect(fake.searchCount()).toBe(1);
    });

    it('is a provider_error naming the status when the API answers 500, without its body', async () => {
      const error = await failureOf(providerFor(settings()).search({ query: 'heron [fail]', numResults: 5 }));
      expect(error).toMatchObject({ code: 'provider_error', status: 500 });
      expect(error.message).toMatch(/answered HTTP 500 Internal Server Error$/);
      expect(error.message).not.toMatch(/fake failure|Internal Server Error<|<h1>/);
    });
  });

  it('sends SearXNG the query, the json format and the language', async () => {
    await providerFor(providers[0][1]()).search({ query: '  grey heron ', numResults: 2, language: 'de-CH' });
    expect(fake.requests).toEqual([
      expect.objectContaining({ method: 'GET', path: '/search', query: { q: 'grey heron', format: 'json', language: 'de-CH' } }),
    ]);
  });

  it('cuts a SearXNG page of results (it has no count parameter) to numResults', async () => {
    const results = await providerFor(providers[0][1]()).search({ query: 'egret', numResults: 4 });
    expect(results).toHaveLength(4);
    expect(fake.requests[0].query).not.toHaveProperty('count');
  });

  it('sends Brave the count, the country and the key in X-Subscription-Token', async () => {
    await providerFor(providers[1][1]()).search({ query: 'egret', numResults: 7, country: 'de' });
    expect(fake.requests).toEqual([
      expect.objectContaining({ path: '/res/v1/web/search', query: { q: 'egret', count: '7', country: 'DE' } }),
    ]);
    expect(fake.requests[0].headers['x-subscription-token']).toBe('brave-secret-key-1');
  });

  it('asks Brave for at most 20 results', async () => {
    const results = await providerFor(providers[1][1]()).search({ query: 'egret', numResults: 50 });
    expect(fake.requests[0].query.count).toBe('20');
    expect(results).toHaveLength(20);
  });

  it('sends Tavily a JSON body with max_results and the key as a bearer token', async () => {
    await providerFor(providers[2][1]()).search({ query: 'egret', numResults: 2 });
    expect(fake.requests).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/search',
        body: { query: 'egret', max_results: 2, search_depth: 'basic', topic: 'general' },
      }),
    ]);
    expect(fake.requests[0].headers.authorization).toBe('Bearer tvly-secret-key-2');
  });

  it('is a provider_error naming 401 for a wrong key, never echoing the key', async () => {
    const brave = await failureOf(
      providerFor({ WEB_SEARCH_PROVIDER: 'brave', BRAVE_SEARCH_API_KEY: 'wrong-brave-key', BRAVE_SEARCH_BASE_URL: base }).search({
        query: 'egret',
        numResults: 2,
      }),
    );
    expect(brave).toMatchObject({ code: 'provider_error', status: 401, message: 'Brave Search answered HTTP 401 Unauthorized' });
    const tavily = await failureOf(
      providerFor({ WEB_SEARCH_PROVIDER: 'tavily', TAVILY_API_KEY: 'wrong-tavily-key', TAVILY_BASE_URL: base }).search({
        query: 'egret',
        numResults: 2,
      }),
    );
    expect(tavily).toMatchObject({ code: 'provider_error', status: 401, message: 'Tavily answered HTTP 401 Unauthorized' });
    expect(`${brave.message} ${tavily.message}`).not.toMatch(/wrong-|SUBSCRIPTION_TOKEN/);
  });

  it('hints at the json format when SearXNG answers 403', async () => {
    const forbidding = createServer((_request, response) => response.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden'));
    await new Promise<void>((resolve) => forbidding.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(forbidding.address() as AddressInfo).port}`;
      const error = await failureOf(
        providerFor({ WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: url }).search({ query: 'egret', numResults: 2 }),
      );
      expect(error).toMatchObject({ code: 'provider_error', status: 403 });
      expect(error.message).toContain('json format');
    } finally {
      forbidding.closeAllConnections();
      await new Promise<void>((resolve) => forbidding.close(() => resolve()));
    }
  });

  describe('when the API does not answer', () => {
    let silent: Server;
    let silentUrl: string;
    let answered: () => void;
    const requestArrived = new Promise<void>((resolve) => (answered = resolve));

    beforeAll(async () => {
      // Takes the request and never answers.
      silent = createServer(() => answered());
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    it('is a timeout after WEB_TOOL_TIMEOUT_MS', async () => {
      const provider = providerFor({ WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: silentUrl, WEB_TOOL_TIMEOUT_MS: 300 });
      const error = await failureOf(provider.search({ query: 'egret', numResults: 2 }));
      expect(error).toMatchObject({ code: 'timeout', message: 'SearXNG did not answer within 300 ms' });
    });

    it("rethrows the caller's abort reason as it is", async () => {
      const provider = providerFor({ WEB_SEARCH_PROVIDER: 'brave', BRAVE_SEARCH_API_KEY: 'k', BRAVE_SEARCH_BASE_URL: silentUrl });
      const controller = new AbortController();
      const reason = new Error('run cancelled');
      const search = provider.search({ query: 'egret', numResults: 2, signal: controller.signal });
      await requestArrived;
      controller.abort(reason);
      await expect(search).rejects.toBe(reason);
    });
  });

  it('is a network error when nothing listens', async () => {
    const port = await freePort();
    const error = await failureOf(
      providerFor({ WEB_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: `http://127.0.0.1:${port}` }).search({ query: 'egret', numResults: 2 }),
    );
    expect(error).toMatchObject({ code: 'network', message: 'SearXNG could not be reached (ECONNREFUSED)' });
  });
});
