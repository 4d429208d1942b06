import { routeTemplateOf, secondsSince, waggleMetrics } from '@waggle/telemetry';
import type { NextFunction, Request, Response } from 'express';
import { contained } from '@waggle/platform';
import type { IncomingMessage } from 'node:http';

/** The label of every request no route answered (404s, probes for paths that do not exist): one series, not one per URL. */
export const UNKNOWN_ROUTE = 'unknown';

/** Methods kept as they are; any other is `_OTHER` (as OpenTelemetry's semantic conventions do), so a client cannot mint series. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const STARTED_AT = Symbol('waggle.http.startedAt');
type TimedResponse = Response & { [STARTED_AT]?: number };

/** The labels of one finished request: route template, bounded method, status (an unrouted one's route is `unknown`). */
export function httpRequestLabels(request: IncomingMessage, statusCode: number): Record<string, string | number> {
  return {
    http_request_method: request.method && KNOWN_METHODS.has(request.method) ? request.method : '_OTHER',
    http_route: routeTemplateOf(request) ?? UNKNOWN_ROUTE,
    http_response_status_code: statusCode,
  };
}

/** Shared by every response (no closure per request); `close` also fires when the client left early. */
function recordRequestDuration(this: TimedResponse): void {
  const startedAt = this[STARTED_AT];
  if (startedAt === undefined) return;
  this[STARTED_AT] = undefined;
  waggleMetrics().httpServerDuration.record(secondsSince(startedAt), httpRequestLabels(this.req, this.statusCode));
}

/** It runs after the answer, outside the request's chain: a failure there is logged and contained. */
const recordRequest = contained('recording a request duration', recordRequestDuration);

/**
 * Times every gateway request into `http_server_request_duration_seconds` (its `_count` is
 * the request rate, the 5xx share the error rate), labelled with the Express route template
 * once routing is done. Mounted first, so a request refused by the body parser counts too.
 */
export function recordHttpMetrics(_request: Request, response: Response, next: NextFunction): void {
  (response as TimedResponse)[STARTED_AT] = performance.now();
  response.once('close', recordRequest);
  next();
}
