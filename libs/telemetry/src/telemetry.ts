import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { AlwaysOffSampler, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Span } from '@opentelemetry/api';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { loadLocalEnvFile } from './local-env-file';
import { startMetrics, stopMetrics } from './metrics';
import { waggleResource } from './resource';
import { isUntracedProbe, setManualHttpTraceContext } from './trace-context';
import { setSpansRecorded } from './spans';
import { GenAiSpanProcessor, setGenAiContentCaptured } from './gen-ai';
import { summarizeStatement } from './statement-summary';

let provider: NodeTracerProvider | undefined;

/**
 * The Express route template that answered a request (`/v1/public/requests/:id`), or
 * undefined when none did (a 404, a request refused before routing). Span names and the
 * HTTP metrics use it rather than the raw URL, which would be one series per id.
 */
export function routeTemplateOf(request: object): string | undefined {
  // Express sets `route` on the requests it routed.
  const routed = request as { route?: { path?: unknown }; baseUrl?: string };
  if (typeof routed.route?.path !== 'string') return undefined;
  const route = `${routed.baseUrl ?? ''}${routed.route.path}`;
  // Middleware bound to every path (nestjs-pino's, `forRoutes('*')`) leaves a route too, on requests no controller answered.
  return route === CATCH_ALL_ROUTE ? undefined : route;
}

/** What Nest turns a `*` middleware route into (Express 5 path syntax). */
const CATCH_ALL_ROUTE = '/{*path}';

/**
 * Names a server span after the route that answered (`POST /v1/prompt/invoke`, `GET
 * /v1/public/requests/:id`), as the Express instrumentation did, without its span for every
 * middleware layer: one span per process per request is what a trace needs, and the layer
 * spans cost the gateway more CPU than anything else it does per request.
 */
function nameByRoute(span: Span, request: ClientRequest | IncomingMessage): void {
  // Client requests and unrouted ones (404) have no route.
  const route = routeTemplateOf(request);
  if (route === undefined) return;
  span.setAttribute('http.route', route);
  span.updateName(`${(request as IncomingMessage).method ?? 'HTTP'} ${route}`);
}

/** The instrumentation's own defaults (they are replaced, not extended, by the option) plus ours. */
const REDACTED_QUERY_PARAMS = ['secret', 'api_key', 'token', 'sig', 'Signature', 'AWSAccessKeyId', 'X-Goog-Signature'];

/**
 * Starts OpenTelemetry tracing. Must run before anything it instruments (http, pg) is
 * loaded, which is why this lives in its own library and every app's main.ts imports it
 * first.
 *
 * With an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or the traces-specific variant) spans
 * are recorded and exported. Without one nothing would read them, so none is recorded:
 * every span is a non-recording one that still carries its trace id, so trace context still
 * crosses every hop (NATS headers, callbacks) and reaches the logs, at a fraction of the cost
 * (the instrumentations skip their attribute work for such spans). The HTTP and PostgreSQL
 * instrumentations are not even registered then: an app's incoming requests get their trace
 * context from `runInTraceContext` (trace-context.ts), which the gateway mounts first. The tracer provider is
 * assembled from its parts rather than through `@opentelemetry/sdk-node`, which loads every
 * exporter it supports (gRPC, Zipkin, Prometheus…) and costs each process about 35 MB of
 * memory for nothing.
 *
 * Metrics (see metrics.ts) start here too, after tracing: the tracing instrumentations are
 * created while the global meter provider is still the no-op one, so they record no metrics of
 * their own (the HTTP instrumentation would otherwise time every request a second time).
 */
export function startTelemetry(appName: string): void {
  if (provider) return;
  loadLocalEnvFile();
  // The specification's switch for turning the SDK off altogether.
  if (process.env.OTEL_SDK_DISABLED === 'true') return;
  const endpoint = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const resource = waggleResource(appName);
  provider = new NodeTracerProvider({
    resource,
    ...(endpoint
      ? { spanProcessors: [new GenAiSpanProcessor(), new BatchSpanProcessor(new OTLPTraceExporter())] }
      : { sampler: new AlwaysOffSampler() }),
  });
  // Global tracer provider, AsyncLocalStorage context and the W3C trace-context propagator.
  provider.register();
  // Without an exporter the HTTP instrumentation's work per request (its span, the context bound
  // to the request and response, the propagator) buys nothing but the trace context, which
  // runInTraceContext sets in a few lines where the app mounts it (the gateway's first middleware).
  setManualHttpTraceContext(!endpoint);
  setSpansRecorded(Boolean(endpoint));
  setGenAiContentCaptured(process.env.OTEL_GENAI_CAPTURE_CONTENT === 'true');
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      ...(endpoint
        ? [
            new HttpInstrumentation({
              ignoreIncomingRequestHook: isUntracedProbe,
              // A webhook trigger may carry its secret as ?secret=; url.query never records it.
              redactedQueryParamsServer: REDACTED_QUERY_PARAMS,
              redactedQueryParams: REDACTED_QUERY_PARAMS,
              applyCustomAttributesOnSpan: nameByRoute,
            }),
          ]
        : []),
      // Redis commands on the request path (the meter, the webhook registry) are one round
      // trip each and need no span of their own. PostgreSQL statements get spans when they are
      // exported; without an exporter the wrapper around every query (a workflow run's
      // admission, step records and finish are on its request path) would buy nothing.
      ...(endpoint ? [postgresInstrumentation()] : []),
    ],
  });
  startMetrics(resource);
}

/**
 * PostgreSQL spans an operator can read: one per statement, named after its operation and
 * table (`SELECT workflow_runs`), its text with every literal replaced by `?` (TypeORM's `$n`
 * parameters stay, their values are never recorded), and only inside a trace (a query no
 * request or job started, the ledger consumer's poll, has no span). The pool's connect spans
 * (`pg-pool.connect`, most of a trace before) are off unless TRACE_DB_CONNECT_SPANS=true.
 */
function postgresInstrumentation(): PgInstrumentation {
  return new PgInstrumentation({
    requireParentSpan: true,
    ignoreConnectSpans: process.env.TRACE_DB_CONNECT_SPANS !== 'true',
    requestHook: (span, { query }) => {
      const summary = summarizeStatement(query.text);
      span.setAttributes({
        'db.query.text': summary.text,
        ...(summary.operation && { 'db.operation.name': summary.operation }),
        ...(summary.table && { 'db.collection.name': summary.table }),
      });
      if (summary.operation) span.updateName(summary.table ? `${summary.operation} ${summary.table}` : summary.operation);
    },
  });
}

/** Flushes and stops exporting, and closes the metrics listener; called last during graceful shutdown. */
export async function stopTelemetry(): Promise<void> {
  const running = provider;
  provider = undefined;
  setManualHttpTraceContext(false);
  setSpansRecorded(false);
  await Promise.all([running?.shutdown(), stopMetrics()]);
}
