import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { IncomingMessage } from 'node:http';
import { loadLocalEnvFile } from './local-env-file';

let sdk: NodeSDK | undefined;

/**
 * Health probes would otherwise be most of the traces a cluster produces. A probe that
 * arrives with a `traceparent` (someone is deliberately tracing it) is kept.
 */
function isUntracedHealthProbe(request: IncomingMessage): boolean {
  return (request.url?.startsWith('/health/') ?? false) && request.headers.traceparent === undefined;
}

/**
 * Starts OpenTelemetry. Must run before anything it instruments (http, express, pg,
 * ioredis) is loaded, which is why this lives in its own library and every app's
 * main.ts imports it first.
 *
 * Spans are always created, so trace ids reach logs and NATS headers; they are
 * exported over OTLP/HTTP only when OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-specific
 * variant) is set.
 */
export function startTelemetry(appName: string): void {
  if (sdk) return;
  loadLocalEnvFile();
  // We log to stdout as JSON lines and export no metrics yet: keep the SDK from
  // defaulting to OTLP exporters for those signals.
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  process.env.OTEL_METRICS_EXPORTER ??= 'none';

  const endpoint = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const spanProcessor: SpanProcessor = endpoint
    ? new BatchSpanProcessor(new OTLPTraceExporter())
    : new NoopSpanProcessor();

  sdk = new NodeSDK({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || `waggle-${appName}`,
    }),
    spanProcessors: [spanProcessor],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: isUntracedHealthProbe }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
}

/** Flushes and stops exporting; called last during graceful shutdown. */
export async function stopTelemetry(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
