import { WaggleException } from '@waggle/errors';
import { answeredId, isMcpRequest, toMcpError, toolFailureOf } from './mcp-errors';

describe('the MCP server’s refusals', () => {
  it('knows its path without regard to case, with a trailing slash or a query, and nothing beside it', () => {
    for (const url of ['/v1/mcp', '/V1/MCP', '/v1/mcp/', '/v1/mcp?x=1'])
      expect({ url, mcp: isMcpRequest({ url }) }).toEqual({ url, mcp: true });
    for (const url of ['/v1/mcpx', '/v1/mcp/tools', '/v1/public/mcp', '/openai/v1/mcp', ''])
      expect({ url, mcp: isMcpRequest({ url }) }).toEqual({ url, mcp: false });
    expect(isMcpRequest({ url: '/mcp', originalUrl: '/v1/mcp' })).toBe(true);
  });

  it('answers a refusal as a JSON-RPC error: the catalog message, its body as data, the challenge on a 401 and Allow on a 405', () => {
    expect(toMcpError(new WaggleException('invalid_api_key'), 'en', 3)).toEqual({
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="waggle"' },
      body: {
        jsonrpc: '2.0',
        error: {
          code: -32_000,
          message: 'The API key is invalid.',
          data: {
            error: 'The API key is invalid.',
            message: 'The API key is invalid.',
            error_code: 'invalid_api_key',
            code: 'invalid_api_key',
          },
        },
        id: 3,
      },
    });
    const notAllowed = toMcpError(
      new WaggleException('invalid_request', { status: 405, detail: 'mcp_method_not_allowed', params: { method: 'GET' } }),
      'es',
    );
    expect(notAllowed).toMatchObject({
      status: 405,
      headers: { allow: 'POST' },
      body: { error: { code: -32_000, message: 'El servidor MCP recibe cada mensaje con POST; GET no se sirve' }, id: null },
    });
  });

  it('codes a body that is not JSON -32700 and a body refused -32600', () => {
    expect(toMcpError(new WaggleException('invalid_request', { detail: 'request_body_not_json' }), 'en').body.error.code).toBe(-32_700);
    expect(
      toMcpError(new WaggleException('validation_error', { status: 413, detail: 'request_body_too_large' }), 'en').body.error.code,
    ).toBe(-32_600);
    expect(toMcpError(new WaggleException('forbidden'), 'en').body.error.code).toBe(-32_000);
  });

  it('echoes the id of one request whose id it could read, and null otherwise', () => {
    expect(answeredId({ jsonrpc: '2.0', id: 'a', method: 'tools/list' })).toBe('a');
    expect(answeredId({ jsonrpc: '2.0', id: 7, method: 'tools/call' })).toBe(7);
    for (const body of [undefined, null, 'x', [], { id: 1 }, { id: {}, method: 'x' }, [{ id: 1, method: 'x' }]])
      expect(answeredId(body)).toBeNull();
  });

  it('gives a tool call’s failure its code, message in the workspace’s language, request id and localized details', () => {
    const refusal = new WaggleException('resource_not_found', { status: 422, detail: 'knowledge_base_not_found' });
    expect(toolFailureOf(refusal, 'es', 'req_1')).toEqual({
      error_code: 'resource_not_found',
      message: 'Base de conocimiento no encontrada',
      request_id: 'req_1',
    });
    const invalid = new WaggleException('validation_error', { details: [{ field: 'inputs', messages: ['bad'] }] });
    expect(toolFailureOf(invalid, 'en', 'req_2')).toMatchObject({ details: [{ field: 'inputs', messages: ['bad'] }] });
  });
});
