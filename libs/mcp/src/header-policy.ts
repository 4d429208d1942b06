/** The most headers one MCP server may be given, and the longest value (bytes of UTF-8). */
export const MAX_MCP_HEADERS = 20;
export const MAX_MCP_HEADER_VALUE_BYTES = 8 * 1024;

/** RFC 9110 `token`: what a header name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Hop-by-hop headers (RFC 9110 7.6.1 and the ones proxies still honour) and what the connection itself sets. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length']);

/**
 * Why a configured header name is refused for an MCP server, or null when it may be sent
 * (the spec's decisions, MCP, "URL policy"): `Host`, every `Mcp-*` header (the transport's own),
 * hop-by-hop headers (`Connection`, `Keep-Alive`, `Proxy-*`, `TE`, `Trailer`, `Transfer-Encoding`,
 * `Upgrade`), `Content-Length`, and anything that is not a valid header name.
 */
export function mcpHeaderRefusal(name: string): string | null {
  if (!TOKEN.test(name)) return 'is not a valid header name';
  const lower = name.toLowerCase();
  if (lower === 'host') return 'is set from the URL';
  if (lower.startsWith('mcp-')) return 'is reserved for the MCP transport';
  if (lower.startsWith('proxy-')) return 'is a hop-by-hop header';
  if (CONNECTION_HEADERS.has(lower)) return lower === 'content-length' ? 'is set by the connection' : 'is a hop-by-hop header';
  return null;
}

/** Why a configured header value is refused (control characters, too long), or null. */
export function mcpHeaderValueRefusal(value: string): string | null {
  if (Buffer.byteLength(value, 'utf8') > MAX_MCP_HEADER_VALUE_BYTES) return `is longer than ${MAX_MCP_HEADER_VALUE_BYTES / 1024} KiB`;
  // A header value is visible characters, spaces and tabs: no line breaks or other control characters.
  for (const char of value) {
    const code = char.charCodeAt(0);
    if ((code < 0x20 && char !== '\t') || code === 0x7f) return 'contains a control character';
    if (code > 0xff) return 'contains a character outside Latin-1';
  }
  return null;
}
