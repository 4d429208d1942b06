import { requestContext } from '@waggle/platform';
import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GatewayEnv } from '../config/gateway.env';
import { isOpenAiRequest } from './openai-errors';

/** The run's request id on every answer of the surface (OpenAI's header name; its SDKs expose it as `requestID`). */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What a browser client of the surface may read from an answer besides the safelisted headers. */
const EXPOSED_HEADERS = [
  REQUEST_ID_HEADER,
  'x-waggle-thread-id',
  'retry-after',
  'x-should-retry',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
  'idempotent-replayed',
  'traceparent',
];

/** `OPENAI_CORS_ORIGINS` as the `cors` package takes it: none, any, or a list. */
function allowedOrigins(setting: string): boolean | string[] {
  const origins = setting
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  if (origins.includes('*')) return true;
  return origins.length > 0 ? origins : false;
}

/**
 * The OpenAI-compatible surface's edge, before anything can refuse a request: every answer
 * carries `x-request-id` (the run's `request_id`, which `GET /v1/public/requests/{id}` finds),
 * and the CORS policy (decisions: allowed origins configurable, none by default; a preflight from
 * an allowed origin echoes the headers it asks for, since the OpenAI SDKs send `x-stainless-*`).
 * The native routes are untouched.
 */
export function openAiEdge(env: Pick<GatewayEnv, 'OPENAI_CORS_ORIGINS'>): RequestHandler {
  const origin = allowedOrigins(env.OPENAI_CORS_ORIGINS);
  // Without `allowedHeaders`, cors reflects Access-Control-Request-Headers: whatever a client's SDK adds is allowed.
  const policy = origin === false ? undefined : cors({ origin, methods: ['GET', 'POST'], exposedHeaders: EXPOSED_HEADERS, maxAge: 600 });
  return (request: Request, response: Response, next: NextFunction) => {
    if (!isOpenAiRequest(request)) return next();
    const requestId = requestContext.get()?.requestId;
    if (requestId) response.setHeader(REQUEST_ID_HEADER, requestId);
    if (!policy) return next();
    policy(request, response, next);
  };
}
