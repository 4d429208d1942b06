import { readFileSync } from 'node:fs';
import { FakeMcpServer, integerFromEnv, runFakeServer, tlsFromEnv } from '@waggle/fake-provider';

/**
 * The fake MCP server as a process, for trying workspace MCP servers without a real one. Plain
 * http on 127.0.0.1 by default: the agent service reaches it when MCP_URL_ALLOWLIST lists
 * 127.0.0.1. FAKE_MCP_BEARER makes it require `Authorization: Bearer <value>`; with
 * FAKE_MCP_TLS_CERT_FILE and FAKE_MCP_TLS_KEY_FILE it serves https.
 */
runFakeServer('fake-mcp', async () => {
  const bearer = process.env.FAKE_MCP_BEARER;
  const server = new FakeMcpServer({
    tls: tlsFromEnv('fake-mcp', 'FAKE_MCP', (path) => readFileSync(path, 'utf8')),
    ...(bearer ? { requiredHeaders: { authorization: `Bearer ${bearer}` } } : {}),
  });
  const url = await server.start(integerFromEnv('fake-mcp', 'FAKE_MCP_PORT', 4030, 65_535), process.env.FAKE_MCP_HOST || '127.0.0.1');
  const tools = server.listedTools().map((tool) => tool.name);
  return {
    banner: [
      `fake-mcp: listening on ${url} (MCP 2026-07-28 and the 2025 revisions, Streamable HTTP)`,
      `  tools: ${tools.join(', ')} (slow waits for a release only tests give)`,
      bearer ? '  requires: Authorization: Bearer $FAKE_MCP_BEARER' : '  requires no headers (FAKE_MCP_BEARER=… requires a bearer token)',
    ],
    stop: () => server.stop(),
  };
});
