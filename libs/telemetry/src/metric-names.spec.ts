import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { getMetricsFromIterator } from 'prom2javascript';
import { exportedSeriesNames, WAGGLE_METRICS } from './metric-names';
import { createInstruments } from './waggle-metrics';

/** What the exporter writes for Waggle's instruments: exactly the agreed names, types and labels. */
describe('Waggle metric names as Prometheus reads them', () => {
  let provider: MeterProvider;
  let exporter: PrometheusExporter;

  beforeEach(() => {
    exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true });
    provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': 'waggle-test', 'service.version': '9.9.9' }),
      readers: [exporter],
    });
  });

  afterEach(() => provider.shutdown());

  async function scrape() {
    const { resourceMetrics } = await exporter.collect();
    const text = new PrometheusSerializer(undefined, false, undefined, false, true).serialize(resourceMetrics);
    return getMetricsFromIterator(text.split('\n')[Symbol.iterator]());
  }

  it('names, types and labels every series as agreed', async () => {
    const instruments = createInstruments(provider.getMeter('waggle'));
    const observed = { queue: 'prompt-runs', state: 'waiting' };
    instruments.queueJobs.addCallback((result) => result.observe(3, observed));
    instruments.queueOldestWaitingAge.addCallback((result) => result.observe(1.5, { queue: 'prompt-runs' }));
    instruments.ledgerPending.addCallback((result) => result.observe(0));
    instruments.ledgerLag.addCallback((result) => result.observe(0));
    instruments.httpServerDuration.record(0.01, { http_request_method: 'GET', http_route: '/v1/models', http_response_status_code: 200 });
    instruments.rpcClientDuration.record(0.002, { rpc_pattern: 'catalog.models.list', outcome: 'ok' });
    instruments.rpcServerDuration.record(0.001, { rpc_pattern: 'catalog.models.list', outcome: 'ok' });
    instruments.providerDuration.record(0.8, { provider: 'openai', model: 'gpt-x', outcome: 'ok' });
    instruments.providerTokens.add(12, { provider: 'openai', model: 'gpt-x', type: 'input' });
    instruments.providerErrors.add(1, { provider: 'openai', model: 'gpt-x', error_code: 'provider_error' });
    instruments.callbackDeliveries.add(1, { outcome: 'delivered' });
    instruments.callbackAttempts.record(2, { outcome: 'delivered' });
    instruments.meterRefusals.add(1, { reason: 'daily_limit' });
    instruments.governanceRefusals.add(1, { scope: 'api_key', reason: 'requests_per_minute' });
    instruments.governanceSpend.add(1500, { scope: 'workspace' });
    instruments.overloadShed.add(1, { intake: 'http', reason: 'in_flight' });
    instruments.inFlight.addCallback((result) => result.observe(2, { intake: 'http' }));
    instruments.eventLoopDelay.addCallback((result) => result.observe(0.012));

    const metrics = await scrape();
    for (const metric of Object.values(WAGGLE_METRICS)) {
      if (metric.name.startsWith('process_')) continue;
      expect([metric.name, metrics[metric.name]?.type]).toEqual([metric.name, metric.type]);
      for (const sample of metrics[metric.name]?.data ?? []) expect(Object.keys(sample.labels).sort()).toEqual([...metric.labels].sort());
    }
    expect(metrics.target_info?.data).toEqual([
      { labels: expect.objectContaining({ service_name: 'waggle-test', service_version: '9.9.9' }), value: 1 },
    ]);
    expect(metrics.waggle_queue_jobs?.data).toEqual([{ labels: observed, value: 3 }]);
  });

  it('lists every sample name a scrape can hold, histograms by their three series', () => {
    const names = exportedSeriesNames();
    expect(names).toEqual(
      expect.arrayContaining([
        'target_info',
        'waggle_queue_jobs',
        'http_server_request_duration_seconds_bucket',
        'waggle_callback_delivery_attempts_count',
        'process_cpu_seconds_total',
        'nodejs_eventloop_delay_p99',
      ]),
    );
    expect(names).not.toContain('http_server_request_duration_seconds');
    expect(new Set(names).size).toBe(names.length);
  });
});
