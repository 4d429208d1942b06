import { trace } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type DestinationStream, type Logger } from 'pino';
import { requestContext, type RequestContextStore } from '../context/request-context';
import type { LogLevel } from '../config/env';
import { contained } from '../reliability/contained';
import { pinoOptions, redactUrl } from './logger-options';

/** What a request's access line needs, taken when it starts. */
interface AccessRecord {
  logger: Logger;
  startedAt: number;
  method: string | undefined;
  url: string | undefined;
  store: RequestContextStore | undefined;
  traceId: string | undefined;
  spanId: string | undefined;
}

const RECORD = Symbol('waggle.accessLog');
type LoggedResponse = ServerResponse & { [RECORD]?: AccessRecord };

const INVALID_TRACE_ID = '00000000000000000000000000000000';

/** Written once the response is done (or the client went away): pino-http's line, without its child logger. */
function accessLine(this: LoggedResponse): void {
  const record = this[RECORD];
  if (!record) return;
  const status = this.statusCode;
  const line: Record<string, unknown> = { req: { method: record.method, url: redactUrl(record.url) } };
  if (record.store?.requestId) line.request_id = record.store.requestId;
  if (record.store?.workspaceId) line.workspace_id = record.store.workspaceId;
  if (record.traceId) {
    line.trace_id = record.traceId;
    line.span_id = record.spanId;
  }
  line.res = { status_code: status };
  if (status >= 500) {
    // As pino-http wrote it: its error went through two serializers, so its type reads Object.
    const error = new Error(`failed with status code ${status}`);
    line.err = { message: error.message, stack: error.stack };
  }
  line.responseTime = Date.now() - record.startedAt;
  record.logger.info(line, status >= 500 ? 'request errored' : 'request completed');
  this[RECORD] = undefined;
}

/** The `close` listener shared by every response: it runs after the answer, outside the request's chain. */
const writeAccessLine = contained('the access log', accessLine, (response: LoggedResponse) => response[RECORD]?.store?.requestId);

/**
 * The gateway's access log: one JSON line per request (health probes excluded), the fields
 * pino-http wrote (`req` method and redacted url, request id, workspace, trace and span ids,
 * `res.status_code`, `responseTime`, "request completed", or "request errored" with an `err`
 * from 500 on, all at level info), at a fraction of its cost: no child logger and no serializers
 * per request, the context read once when the request starts (mount it after the middleware that
 * sets it), and nothing at all below info. One listener per response, shared by all.
 */
export function createAccessLog(
  app: string,
  level: LogLevel,
  destination?: DestinationStream,
): (request: IncomingMessage, response: ServerResponse, next: () => void) => void {
  // The app's log options without the mixin (the line carries its context itself) and without
  // redaction (its paths are request headers, which the line never holds).
  const options = { ...pinoOptions(app, level), mixin: undefined, redact: undefined };
  const logger = destination ? pino(options, destination) : pino(options);
  if (!logger.isLevelEnabled('info')) return (_request, _response, next) => next();
  return function accessLog(request, response, next) {
    if (request.url?.startsWith('/health/')) return next();
    const span = trace.getActiveSpan()?.spanContext();
    const traced = span !== undefined && span.traceId !== INVALID_TRACE_ID;
    const record: AccessRecord = {
      logger,
      startedAt: Date.now(),
      method: request.method,
      url: request.url,
      store: requestContext.get(),
      traceId: traced ? span.traceId : undefined,
      spanId: traced ? span.spanId : undefined,
    };
    (response as LoggedResponse)[RECORD] = record;
    response.once('close', writeAccessLine);
    next();
  };
}
