import { Logger as NestLogger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createAccessLog, isWellFormedURIComponent, loadConfig, newRequestId, requestContext, StorableInputPipe } from '@waggle/platform';
import { json, type NextFunction, type Request, type Response } from 'express';
import { listenForMetrics, runInTraceContext, traceresponseOf } from '@waggle/telemetry';
import { trace } from '@opentelemetry/api';
import { WaggleException } from '@waggle/errors';
import { Logger } from 'nestjs-pino';
import type { Server } from 'node:http';
import { GatewayEnv } from './config/gateway.env';
import { answerMalformedRequestsWithJson } from './errors/client-error.handler';
import { HttpExceptionFilter, sendError } from './errors/http-exception.filter';
import { applyKeepAlive } from './keep-alive';
import { datasetBodies } from './datasets/dataset-bodies';
import { createEdgeValidationPipe } from './edge-validation';
import { GatewayModule } from './gateway.module';
import { recordHttpMetrics } from './metrics/http-metrics';
import { installAdmissionGate, listenWithBacklog } from './overload/admission-gate';
import { buildPublicOpenApiDocument } from './openapi/openapi-document';
import { OpenApiDocumentHolder } from './openapi/openapi.controller';
import { openAiEdge } from './openai/openai-edge';
import { MCP_MAX_BODY_BYTES, mcpEdge } from './mcp/mcp-edge';
import { MCP_PATH } from './mcp/mcp-errors';
import { CONSOLE_PATH, consoleConfigOf, serveConsole } from './console/console-static';

/** The W3C trace context header every answer carries (see answerWithTraceparent). */
const TRACEPARENT_HEADER = 'traceparent';

/**
 * HTTP/1.1 requires a Host header, and a request without one gets 400 (RFC 9112, 3.2), in the
 * catalog's shape: Node's own check (requireHostHeader, turned off in bootstrap) answers it with
 * an empty body.
 */
function requireHost(request: Request, response: Response, next: NextFunction): void {
  if (request.headers.host !== undefined || request.httpVersion !== '1.1') return next();
  sendError(new WaggleException('invalid_request', { detail: 'request_host_missing' }), request, response, hostErrors);
}
const hostErrors = new NestLogger('RequireHost');

/**
 * A query string whose percent-encoding does not decode (`?%E0%A4%A=1`, a lone `%`) is a
 * malformed request: 400 `invalid_request` naming it, rather than a guess at what was meant.
 */
function requireWellFormedQuery(request: Request, response: Response, next: NextFunction): void {
  const url = request.url;
  const query = url.indexOf('?');
  if (query < 0 || isWellFormedURIComponent(url.slice(query + 1))) return next();
  sendError(new WaggleException('invalid_request', { detail: 'request_query_malformed' }), request, response, hostErrors);
}

function startRequest(request: Request, response: Response, next: NextFunction): void {
  requestContext.run({ requestId: newRequestId() }, runInTraceContext, request, () => answerWithTraceparent(response, next));
}

/**
 * Every answer (success, error, stream, health) names the trace that served it, as W3C's
 * traceresponse: the server span's ids, the HTTP instrumentation's when an exporter is set,
 * runInTraceContext's otherwise. A client quotes it to an operator, or continues the trace.
 * Set before anything else runs, so no early refusal (401, 413, an unrouted 404) lacks it.
 */
function answerWithTraceparent(response: Response, next: NextFunction): void {
  response.setHeader(TRACEPARENT_HEADER, traceresponseOf(trace.getActiveSpan()?.spanContext()));
  next();
}

/** Builds the gateway without listening, so tests can choose how to start it. */
export async function createGatewayApp(env: GatewayEnv): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(GatewayModule.forRoot(env), { bufferLogs: true, bodyParser: false });
  configureGatewayApp(app, env);
  app.get(OpenApiDocumentHolder).document = buildPublicOpenApiDocument(app);
  return app;
}

/**
 * The gateway's HTTP edge, applied to a Nest app created with `bodyParser: false`:
 * request metrics, request ids and trace context, the access log, JSON body parsing with a size limit, the one exception filter, a depth and
 * NUL check on every input, validation.
 */
export function configureGatewayApp(
  app: NestExpressApplication,
  env: Pick<GatewayEnv, 'MAX_JSON_BODY_BYTES' | 'LOG_LEVEL' | 'OPENAI_CORS_ORIGINS' | 'MCP_ALLOWED_ORIGINS' | 'CONSOLE_TRACE_URL_TEMPLATE'>,
): void {
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.use(recordHttpMetrics);
  // The request id and the trace context (see runInTraceContext) exist before anything else runs,
  // so every log line and NATS hop has them.
  app.use(startRequest);
  app.use(createAccessLog('gateway', env.LOG_LEVEL));
  app.use(openAiEdge(env));
  app.use(mcpEdge(env));
  app.use(requireHost);
  app.use(requireWellFormedQuery);
  // The web console's static files: mounted on its prefix, so no API request passes through it.
  app.use(CONSOLE_PATH, serveConsole(undefined, consoleConfigOf(env)));
  // The MCP server reads every body as JSON, whatever its Content-Type says, up to its own limit
  // (decisions: 1 MiB): a body past it is a 413 before the key is read, as everywhere.
  app.use(MCP_PATH, json({ limit: MCP_MAX_BODY_BYTES, type: () => true }));
  app.use(datasetBodies());
  app.use(json({ limit: env.MAX_JSON_BODY_BYTES }));
  // body-parser's failures happen before Nest's filters can see them.
  const bodyErrors = new NestLogger('BodyParser');
  app.use((error: unknown, request: Request, response: Response, next: NextFunction) => {
    if (!error) return next();
    sendError(error, request, response, bodyErrors);
  });
  app.useGlobalFilters(new HttpExceptionFilter());
  // Before validation: class-transformer recurses, and PostgreSQL refuses NUL characters.
  app.useGlobalPipes(new StorableInputPipe(), createEdgeValidationPipe());
}

export async function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(GatewayEnv);
  const app = await createGatewayApp(env);
  applyKeepAlive(app.getHttpServer(), env.HTTP_KEEP_ALIVE_TIMEOUT_MS);
  // requireHost answers a missing Host in the catalog's shape instead of Node's empty 400.
  (app.getHttpServer() as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  installAdmissionGate(app.getHttpServer(), env);
  await listenWithBacklog(app, env.PORT, env.HOST);
  answerMalformedRequestsWithJson(app.getHttpServer());
  // Prometheus scrapes a port of its own, never the public one (stopTelemetry closes it).
  const metricsPort = await listenForMetrics(env.METRICS_PORT, env.HOST);
  app.get(Logger).log({ msg: 'metrics at /metrics', metrics_port: metricsPort });
  return app;
}
