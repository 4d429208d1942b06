import { Logger } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import { requestContext } from '@waggle/platform';
import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GatewayEnv } from '../config/gateway.env';
import { sendError } from '../errors/http-exception.filter';
import { REQUEST_ID_HEADER } from '../openai/openai-edge';
import { isMcpRequest } from './mcp-errors';

/** decisions: an MCP request is at most 1 MiB (larger: 413). */
export const MCP_MAX_BODY_BYTES = 1024 * 1024;

/** What a browser client of the MCP server may read from an answer besides the safelisted headers. */
const EXPOSED_HEADERS = ['mcp-protocol-version', 'mcp-session-id', 'www-authenticate', REQUEST_ID_HEADER, 'traceparent'];

/** An origin as browsers send it (`scheme://host[:port]`), compared without regard to case and default ports. */
function originOf(value: string): string {
  try {
    return new URL(value).origin.toLowerCase();
  } catch {
    return value.trim().toLowerCase();
  }
}

/** `MCP_ALLOWED_ORIGINS` as a set of origins. */
export function allowedMcpOrigins(setting: string): ReadonlySet<string> {
  return new Set(
    setting
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean)
      .map(originOf),
  );
}

const edgeErrors = new Logger('McpEdge');

/**
 * The MCP server's edge, before anything can refuse a request (the spec's decisions, MCP): every
 * answer carries `x-request-id`; an `Origin`, when sent, must be one of MCP_ALLOWED_ORIGINS (403
 * otherwise, before the key is even read: a page the workspace did not allow cannot drive its
 * tools), and an allowed origin gets CORS answers. Requests without `Origin` (MCP clients
 * outside a browser) pass. Other routes are untouched.
 */
export function mcpEdge(env: Pick<GatewayEnv, 'MCP_ALLOWED_ORIGINS'>): RequestHandler {
  const allowed = allowedMcpOrigins(env.MCP_ALLOWED_ORIGINS);
  const policy =
    allowed.size === 0
      ? undefined
      : cors({
          // Only allowed origins get this far: each is answered as it sent itself.
          origin: (origin, answer) => answer(null, origin ?? false),
          methods: ['POST'],
          exposedHeaders: EXPOSED_HEADERS,
          maxAge: 600,
        });
  return (request: Request, response: Response, next: NextFunction) => {
    if (!isMcpRequest(request)) return next();
    const requestId = requestContext.get()?.requestId;
    if (requestId) response.setHeader(REQUEST_ID_HEADER, requestId);
    const origin = request.headers.origin;
    if (origin !== undefined && !allowed.has(originOf(origin))) {
      sendError(
        new WaggleException('forbidden', { detail: 'mcp_origin_not_allowed', params: { origin: origin.slice(0, 200) } }),
        request,
        response,
        edgeErrors,
      );
      return;
    }
    if (!policy) return next();
    policy(request, response, next);
  };
}
