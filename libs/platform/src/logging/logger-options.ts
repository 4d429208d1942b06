import { trace } from '@opentelemetry/api';
import type { Params } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stdSerializers, stdTimeFunctions, type LoggerOptions } from 'pino';
import { requestContext } from '../context/request-context';
import type { LogLevel } from '../config/env';

/** Query parameters that may carry credentials (the webhook trigger's `?secret=`). */
const SECRET_QUERY_PARAMS = ['secret', 'api_key', 'token'];

/**
 * A percent-encoded component as text, never throwing: a malformed escape (`%E0%A4%A`, `%zz`)
 * is kept as it was sent, as the WHATWG URL parser keeps it. For what a caller sent.
 */
export function safeDecodeURIComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Whether every `%` of a percent-encoded text starts an escape that decodes, as UTF-8, to text. Never throws. */
export function isWellFormedURIComponent(text: string): boolean {
  if (!text.includes('%')) return true;
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Replaces the values of credential-bearing query parameters, keeping the rest of the URL.
 * Never throws, whatever the client sent: it runs in the access log, after the answer.
 */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url || !url.includes('?')) return url;
  const [path, query] = url.split('?', 2) as [string, string];
  const params = query.split('&').map((pair) => {
    const rawName = pair.split('=', 1)[0] ?? '';
    const name = safeDecodeURIComponent(rawName.replace(/\+/g, ' ')).toLowerCase();
    return SECRET_QUERY_PARAMS.includes(name) ? `${rawName}=[redacted]` : pair;
  });
  return `${path}?${params.join('&')}`;
}

/** `scheme://user:password@host` → `scheme://[redacted]@host`, wherever it appears in a string. */
export function redactCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1[redacted]@');
}

/**
 * Errors are logged with their message and stack, which drivers sometimes fill with a
 * connection string; credentials in URLs are masked before the line is written.
 */
function serializeError(error: Error): Record<string, unknown> {
  const serialized = stdSerializers.err(error) as unknown as Record<string, unknown>;
  for (const key of ['message', 'stack']) {
    if (typeof serialized[key] === 'string') serialized[key] = redactCredentials(serialized[key] as string);
  }
  return serialized;
}

/** Adds the request id, workspace and trace ids to every line, whatever logged it. */
export function contextFields(): Record<string, string> {
  const fields: Record<string, string> = {};
  const store = requestContext.get();
  if (store?.requestId) fields.request_id = store.requestId;
  if (store?.workspaceId) fields.workspace_id = store.workspaceId;
  const span = trace.getActiveSpan()?.spanContext();
  if (span && span.traceId !== '00000000000000000000000000000000') {
    fields.trace_id = span.traceId;
    fields.span_id = span.spanId;
  }
  return fields;
}

export function pinoOptions(app: string, level: LogLevel): LoggerOptions {
  return {
    level,
    base: { app },
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: contextFields,
    serializers: { err: serializeError },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-service-webhook-secret"]', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  };
}

/**
 * nestjs-pino settings: JSON lines, one per request (health probes excluded), no secrets. With
 * `accessLog: 'own'` the app writes its access lines itself (createAccessLog) and nestjs-pino's
 * per-request middleware (pino-http's child logger, its AsyncLocalStorage store) is not mounted:
 * lines logged during a request carry its request id, workspace and trace ids (contextFields),
 * not the request's method and url.
 */
export function loggerModuleParams(app: string, level: LogLevel, accessLog: 'pino-http' | 'own' = 'pino-http'): Params {
  return {
    ...(accessLog === 'own' && { forRoutes: [] }),
    pinoHttp: {
      ...pinoOptions(app, level),
      autoLogging: { ignore: (req: IncomingMessage) => req.url?.startsWith('/health/') ?? false },
      // The request id is made by the gateway's first middleware (see RequestIdMiddleware).
      genReqId: () => requestContext.get()?.requestId ?? '',
      serializers: {
        err: serializeError,
        req: (req: IncomingMessage & { id?: unknown }) => ({ method: req.method, url: redactUrl(req.url) }),
        res: (res: ServerResponse) => ({ status_code: res.statusCode }),
      },
    },
  };
}
