import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Span } from '@opentelemetry/api';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { loadLocalEnvFile } from './local-env-file';

let provider: NodeTracerProvider | undefined;

/**
 * Health probes would otherwise be most of the traces a cluster produces. A probe that
 * arrives with a `traceparent` (someone is deliberately tracing it) is kept.
 */
function isUntracedHealthProbe(request: IncomingMessage): boolean {
  return (request.url?.startsWith('/health/') ?? false) && request.headers.traceparent === undefined;
}

/**
 * Names a server span after the route that answered (`POST /v1/prompt/invoke`, `GET
 * /v1/public/requests/:id`), as the Express instrumentation did, without its span for every
 * middleware layer: one span per process per request is what a trace needs, and the layer
 * spans cost the gateway more CPU than anything else it does per request.
 */
function nameByRoute(span: Span, request: ClientRequest | IncomingMessage): void {
  // Express sets `route` on the requests it routed; client requests and unrouted ones (404) have none.
  const routed = request as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };
  if (typeof routed.route?.path !== 'string') return;
  const route = `${routed.baseUrl ?? ''}${routed.route.path}`;
  span.setAttribute('http.route', route);
  span.updateName(`${routed.method ?? 'HTTP'} ${route}`);
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
 * (the instrumentations skip their attribute work for such spans). The tracer provider is
 * assembled from its parts rather than through `@opentelemetry/sdk-node`, which loads every
 * exporter it supports (gRPC, Zipkin, Prometheus…) and costs each process about 35 MB of
 * memory for nothing.
 */
export function startTelemetry(appName: string): void {
  if (provider) return;
  loadLocalEnvFile();
  // The specification's switch for turning the SDK off altogether.
  if (process.env.OTEL_SDK_DISABLED === 'true') return;
  const endpoint = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || `waggle-${appName}`,
    }),
    ...(endpoint ? { spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] } : { sampler: new AlwaysOffSampler() }),
  });
  // Global tracer provider, AsyncLocalStorage context and the W3C trace-context propagator.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: isUntracedHealthProbe,
        // A webhook trigger may carry its secret as ?secret=; url.query never records it.
        redactedQueryParamsServer: REDACTED_QUERY_PARAMS,
        redactedQueryParams: REDACTED_QUERY_PARAMS,
        applyCustomAttributesOnSpan: nameByRoute,
      }),
      // Redis commands on the request path (the meter, the webhook registry) are one round
      // trip each and need no span of their own; PostgreSQL is off the hot path.
      new PgInstrumentation(),
    ],
  });
}

/** Flushes and stops exporting; called last during graceful shutdown. */
export async function stopTelemetry(): Promise<void> {
  const running = provider;
  provider = undefined;
  await running?.shutdown();
}
