import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { IncomingMessage } from 'node:http';
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
 * Starts OpenTelemetry tracing. Must run before anything it instruments (http, express,
 * pg, ioredis) is loaded, which is why this lives in its own library and every app's
 * main.ts imports it first.
 *
 * Spans are always created, so trace ids reach logs and NATS headers; they are exported
 * over OTLP/HTTP only when OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-specific variant)
 * is set. The tracer provider is assembled from its parts rather than through
 * `@opentelemetry/sdk-node`, which loads every exporter it supports (gRPC, Zipkin,
 * Prometheus…) and costs each process about 35 MB of memory for nothing.
 */
/** The instrumentation's own defaults (they are replaced, not extended, by the option) plus ours. */
const REDACTED_QUERY_PARAMS = ['secret', 'api_key', 'token', 'sig', 'Signature', 'AWSAccessKeyId', 'X-Goog-Signature'];

export function startTelemetry(appName: string): void {
  if (provider) return;
  loadLocalEnvFile();
  // The specification's switch for turning the SDK off altogether.
  if (process.env.OTEL_SDK_DISABLED === 'true') return;
  const endpoint = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const spanProcessor: SpanProcessor = endpoint ? new BatchSpanProcessor(new OTLPTraceExporter()) : new NoopSpanProcessor();

  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || `waggle-${appName}`,
    }),
    spanProcessors: [spanProcessor],
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
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
}

/** Flushes and stops exporting; called last during graceful shutdown. */
export async function stopTelemetry(): Promise<void> {
  const running = provider;
  provider = undefined;
  await running?.shutdown();
}
