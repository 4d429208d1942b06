import { readFileSync } from 'node:fs';
import { FakeSearchServer } from '@waggle/fake-provider';

function port(): number {
  const raw = process.env.FAKE_SEARCH_PORT;
  if (raw === undefined || raw === '') return 4020;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    process.stderr.write('fake-search: FAKE_SEARCH_PORT must be a port number\n');
    process.exit(78);
  }
  return value;
}

/** A certificate and key from FAKE_SEARCH_TLS_CERT_FILE and FAKE_SEARCH_TLS_KEY_FILE (PEM), or none. */
function tls(): { key: string; cert: string } | undefined {
  const certFile = process.env.FAKE_SEARCH_TLS_CERT_FILE;
  const keyFile = process.env.FAKE_SEARCH_TLS_KEY_FILE;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) {
    process.stderr.write('fake-search: set both FAKE_SEARCH_TLS_CERT_FILE and FAKE_SEARCH_TLS_KEY_FILE, or neither\n');
    process.exit(78);
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/**
 * The fake search server as a process, for trying workflows' `web_search` and `scrape` steps
 * without a search API key. Plain http by default: its result pages can then be searched for
 * but not scraped (the scraper fetches https only); with a certificate the invocation service
 * trusts (NODE_EXTRA_CA_CERTS) and 127.0.0.1 in SCRAPE_URL_ALLOWLIST, they can be scraped too.
 */
async function main(): Promise<void> {
  const braveApiKey = process.env.FAKE_SEARCH_BRAVE_KEY || 'fake-brave-key';
  const tavilyApiKey = process.env.FAKE_SEARCH_TAVILY_KEY || 'fake-tavily-key';
  const server = new FakeSearchServer({ braveApiKey, tavilyApiKey, tls: tls() });
  const url = await server.start(port(), process.env.FAKE_SEARCH_HOST || '127.0.0.1');
  process.stdout.write(
    [
      `fake-search: listening on ${url}`,
      `  SearXNG JSON: GET  ${url}/search?q=…&format=json   (WEB_SEARCH_PROVIDER=searxng SEARXNG_URL=${url})`,
      `  Brave Search: GET  ${url}/res/v1/web/search?q=…   (WEB_SEARCH_PROVIDER=brave BRAVE_SEARCH_BASE_URL=${url} BRAVE_SEARCH_API_KEY=${braveApiKey})`,
      `  Tavily:       POST ${url}/search                  (WEB_SEARCH_PROVIDER=tavily TAVILY_BASE_URL=${url} TAVILY_API_KEY=${tavilyApiKey})`,
      `  result pages: GET  ${url}/pages/{slug}-{i}`,
      '  hooks: a query with [fail] answers 500; a page slug with broken answers 404, binary non-document bytes, huge a 1 MiB page',
      '',
    ].join('\n'),
  );
  const shutdown = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`fake-search: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
