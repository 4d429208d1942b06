import { readFileSync } from 'node:fs';
import { FakeSearchServer, integerFromEnv, runFakeServer, tlsFromEnv } from '@waggle/fake-provider';

/**
 * The fake search server as a process, for trying workflows' `web_search` and `scrape` steps
 * without a search API key. Plain http by default: its result pages can then be searched for
 * but not scraped (the scraper fetches https only); with a certificate the invocation service
 * trusts (NODE_EXTRA_CA_CERTS) and 127.0.0.1 in SCRAPE_URL_ALLOWLIST, they can be scraped too.
 */
runFakeServer('fake-search', async () => {
  const braveApiKey = process.env.FAKE_SEARCH_BRAVE_KEY || 'fake-brave-key';
  const tavilyApiKey = process.env.FAKE_SEARCH_TAVILY_KEY || 'fake-tavily-key';
  const server = new FakeSearchServer({
    braveApiKey,
    tavilyApiKey,
    tls: tlsFromEnv('fake-search', 'FAKE_SEARCH', (path) => readFileSync(path, 'utf8')),
  });
  const url = await server.start(
    integerFromEnv('fake-search', 'FAKE_SEARCH_PORT', 4020, 65_535),
    process.env.FAKE_SEARCH_HOST || '127.0.0.1',
  );
  return {
    banner: [
      `fake-search: listening on ${url}`,
      `  SearXNG JSON: GET  ${url}/search?q=…&format=json   (WEB_SEARCH_PROVIDER=searxng SEARXNG_URL=${url})`,
      `  Brave Search: GET  ${url}/res/v1/web/search?q=…   (WEB_SEARCH_PROVIDER=brave BRAVE_SEARCH_BASE_URL=${url} BRAVE_SEARCH_API_KEY=${braveApiKey})`,
      `  Tavily:       POST ${url}/search                  (WEB_SEARCH_PROVIDER=tavily TAVILY_BASE_URL=${url} TAVILY_API_KEY=${tavilyApiKey})`,
      `  result pages: GET  ${url}/pages/{slug}-{i}`,
      '  hooks: a query with [fail] answers 500; a page slug with broken answers 404, binary non-document bytes, huge a 1 MiB page',
    ],
    stop: () => server.stop(),
  };
});
