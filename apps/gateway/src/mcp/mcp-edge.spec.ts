import { allowedMcpOrigins } from './mcp-edge';

describe('MCP_ALLOWED_ORIGINS', () => {
  it('reads a comma-separated list of origins, compared by scheme, host and port without regard to case or a default port', () => {
    expect([...allowedMcpOrigins(' https://App.Example.com:443 , http://localhost:5173,,https://x.example.com/path ')]).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
      'https://x.example.com',
    ]);
    expect(allowedMcpOrigins('').size).toBe(0);
    expect([...allowedMcpOrigins('null')]).toEqual(['null']);
  });
});
