import { dashboardExpressions, metricNamesIn, readGrafanaDashboard } from '@waggle/testing';
import { exportedSeriesNames, WAGGLE_METRICS } from '@waggle/telemetry';

/**
 * deploy/helm/waggle/files/waggle-dashboard.json: it parses, and every series it queries is one the
 * apps export (the names list the instruments are created from; the e2e tier checks the same
 * against real scrapes).
 */
describe('the Grafana dashboard', () => {
  const dashboard = readGrafanaDashboard();
  const expressions = dashboardExpressions(dashboard);
  const queried = [...new Set(expressions.flatMap(metricNamesIn))];

  it('parses as a dashboard with panels and PromQL targets', () => {
    expect(dashboard).toMatchObject({ uid: 'waggle-overview', title: 'Waggle' });
    expect(expressions.length).toBeGreaterThan(20);
  });

  it('queries only series the apps export', () => {
    const exported = new Set(exportedSeriesNames());
    expect(queried.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('shows requests, RPC, queues, providers, callbacks, the meter, the ledger and processes', () => {
    const shown = new Set(queried.map((name) => name.replace(/_(bucket|count|sum)$/, '')));
    for (const metric of Object.values(WAGGLE_METRICS)) {
      if (metric.name === 'process_start_time_seconds') continue;
      expect([metric.name, shown.has(metric.name)]).toEqual([metric.name, true]);
    }
    expect(shown.has('nodejs_eventloop_delay_p99')).toBe(true);
  });

  it('reads metric names out of PromQL, not label names, functions or keywords', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, sum by (le, http_route) (rate(http_server_request_duration_seconds_bucket{namespace=~"a|b"}[5m])))',
      ),
    ).toEqual(['http_server_request_duration_seconds_bucket']);
    expect(metricNamesIn('sum(rate(a_total{x="by (y)"}[5m])) / on (job) group_left b_info')).toEqual(['a_total', 'b_info']);
  });
});
