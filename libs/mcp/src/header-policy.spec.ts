import { mcpHeaderRefusal, mcpHeaderValueRefusal } from './header-policy';

describe('mcpHeaderRefusal', () => {
  it.each(['Authorization', 'X-Api-Key', 'x-tenant', 'Cookie', 'User-Agent', "A!#$%&'*+-.^_`|~9"])('accepts %s', (name) => {
    expect(mcpHeaderRefusal(name)).toBeNull();
  });

  it.each([
    ['Host', 'is set from the URL'],
    ['host', 'is set from the URL'],
    ['Mcp-Session-Id', 'is reserved for the MCP transport'],
    ['MCP-Protocol-Version', 'is reserved for the MCP transport'],
    ['mcp-anything', 'is reserved for the MCP transport'],
    ['Connection', 'is a hop-by-hop header'],
    ['Keep-Alive', 'is a hop-by-hop header'],
    ['Proxy-Authorization', 'is a hop-by-hop header'],
    ['Proxy-Connection', 'is a hop-by-hop header'],
    ['TE', 'is a hop-by-hop header'],
    ['Trailer', 'is a hop-by-hop header'],
    ['Transfer-Encoding', 'is a hop-by-hop header'],
    ['Upgrade', 'is a hop-by-hop header'],
    ['Content-Length', 'is set by the connection'],
    ['', 'is not a valid header name'],
    ['X Key', 'is not a valid header name'],
    ['X-Key:', 'is not a valid header name'],
    ['Naïve', 'is not a valid header name'],
    ['X-Key\r\nHost', 'is not a valid header name'],
  ])('refuses %j: %s', (name, reason) => {
    expect(mcpHeaderRefusal(name)).toBe(reason);
  });
});

describe('mcpHeaderValueRefusal', () => {
  it('accepts ordinary values up to 8 KiB', () => {
    expect(mcpHeaderValueRefusal('Bearer abc.def-ghi')).toBeNull();
    expect(mcpHeaderValueRefusal('x'.repeat(8 * 1024))).toBeNull();
    expect(mcpHeaderValueRefusal('tab\tand space')).toBeNull();
  });

  it('refuses line breaks, other control characters, characters a header cannot carry, and values over 8 KiB', () => {
    expect(mcpHeaderValueRefusal('a\r\nHost: evil')).toBe('contains a control character');
    expect(mcpHeaderValueRefusal('a\u0000b')).toBe('contains a control character');
    expect(mcpHeaderValueRefusal('token ✓')).toBe('contains a character outside Latin-1');
    expect(mcpHeaderValueRefusal('x'.repeat(8 * 1024 + 1))).toBe('is longer than 8192 bytes');
  });
});
