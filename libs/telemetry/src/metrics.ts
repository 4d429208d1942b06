import { metrics, ValueType, type Meter } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { RuntimeNodeInstrumentation } from '@opentelemetry/instrumentation-runtime-node';
import type { Resource } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WAGGLE_METRICS } from './metric-names';

let meterProvider: MeterProvider | undefined;
let exporter: PrometheusExporter | undefined;
let server: Server | undefined;

/** The process series every Prometheus client exports, under their usual names. */
function observeProcess(meter: Meter): void {
  const startTime = Math.round(Date.now() / 1000 - process.uptime());
  meter
    .createObservableCounter(WAGGLE_METRICS.processCpu.name, { description: WAGGLE_METRICS.processCpu.help, unit: 's' })
    .addCallback((result) => {
      const { user, system } = process.cpuUsage();
      result.observe((user + system) / 1e6);
    });
  meter
    .createObservableGauge(WAGGLE_METRICS.processResidentMemory.name, {
      description: WAGGLE_METRICS.processResidentMemory.help,
      unit: 'By',
      valueType: ValueType.INT,
    })
    .addCallback((result) => result.observe(process.memoryUsage.rss()));
  meter
    .createObservableGauge(WAGGLE_METRICS.processStartTime.name, {
      description: WAGGLE_METRICS.processStartTime.help,
      unit: 's',
      valueType: ValueType.INT,
    })
    .addCallback((result) => result.observe(startTime));
}

/**
 * OpenTelemetry metrics read by Prometheus: a meter provider whose only reader is the
 * Prometheus exporter, pulled at scrape time (nothing runs between scrapes but the runtime
 * instrumentation's event loop histogram). The exporter never opens a server of its own: its
 * request handler is mounted on the app's HTTP port (services) or on METRICS_PORT (gateway).
 * `target_info` carries the resource (service.name, service.version, OTEL_RESOURCE_ATTRIBUTES).
 */
export function startMetrics(resource: Resource): void {
  if (meterProvider) return;
  exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true });
  meterProvider = new MeterProvider({ resource, readers: [exporter] });
  metrics.setGlobalMeterProvider(meterProvider);
  registerInstrumentations({ meterProvider, instrumentations: [new RuntimeNodeInstrumentation()] });
  observeProcess(meterProvider.getMeter('waggle.process'));
}

/**
 * Answers a scrape with the Prometheus text format: 404 when metrics are off
 * (OTEL_SDK_DISABLED=true). Mounted by services on `GET /metrics`.
 */
export function serveMetricsRequest(request: IncomingMessage, response: ServerResponse): void {
  if (!exporter) {
    response.statusCode = 404;
    response.setHeader('content-type', 'text/plain; charset=utf-8');
    response.end('metrics are off (OTEL_SDK_DISABLED=true)\n');
    return;
  }
  exporter.getMetricsRequestHandler(request, response);
}

/**
 * A listener of its own for `/metrics` (the gateway's METRICS_PORT, never its public port);
 * anything else answers 404. Resolves with the port it listens on (0 picks a free one).
 */
export async function listenForMetrics(port: number, host?: string): Promise<number> {
  if (server) return (server.address() as AddressInfo).port;
  const listener = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (request.method === 'GET' && path === '/metrics') return serveMetricsRequest(request, response);
    response.statusCode = 404;
    response.setHeader('content-type', 'text/plain; charset=utf-8');
    response.end('not found: metrics are at GET /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(port, host, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  server = listener;
  return (listener.address() as AddressInfo).port;
}

export async function stopMetrics(): Promise<void> {
  const listener = server;
  server = undefined;
  if (listener) await new Promise((resolve) => listener.close(resolve));
  const running = meterProvider;
  meterProvider = undefined;
  exporter = undefined;
  await running?.shutdown().catch(() => undefined);
}
