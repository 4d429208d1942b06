/**
 * Every series Waggle exports at `/metrics` beside the runtime's, with its labels: the one
 * list the instruments (waggle-metrics.ts), the Grafana dashboard's test and docs/operations/metrics.md
 * follow, and names other deployments depend on (the chart's ServiceMonitor, KEDA triggers on
 * `waggle_queue_jobs{state="waiting"}`). Renaming one breaks dashboards and alerts: treat a
 * name as wire format.
 *
 * Names are given as Prometheus sees them. The exporter turns OpenTelemetry's dots into
 * underscores and adds `_total` to counters, but no unit suffix, so each name here carries its
 * unit itself.
 */
export const WAGGLE_METRICS = {
  httpServerDuration: {
    name: 'http_server_request_duration_seconds',
    type: 'histogram',
    labels: ['http_request_method', 'http_route', 'http_response_status_code'],
    help: 'Gateway HTTP requests by route template (unknown for unrouted paths) and status, from arrival to the last byte',
  },
  rpcClientDuration: {
    name: 'waggle_rpc_client_duration_seconds',
    type: 'histogram',
    labels: ['rpc_pattern', 'outcome'],
    help: 'NATS requests this process sent, until the reply (or the end of a stream): outcome ok, error (an error envelope or no responder) or timeout',
  },
  rpcServerDuration: {
    name: 'waggle_rpc_server_duration_seconds',
    type: 'histogram',
    labels: ['rpc_pattern', 'outcome'],
    help: 'NATS requests this process answered, until the reply (or the end of a stream): outcome ok or error',
  },
  queueJobs: {
    name: 'waggle_queue_jobs',
    type: 'gauge',
    labels: ['queue', 'state'],
    help: 'Jobs in a BullMQ queue by state (waiting, active, delayed, failed, dead_lettered), read at scrape time by every replica of the app that owns the queue: aggregate with max() by (queue, state)',
  },
  queueOldestWaitingAge: {
    name: 'waggle_queue_oldest_waiting_age_seconds',
    type: 'gauge',
    labels: ['queue'],
    help: 'How long the oldest waiting job of a queue has waited (0 when none waits)',
  },
  providerDuration: {
    name: 'waggle_provider_request_duration_seconds',
    type: 'histogram',
    labels: ['provider', 'model', 'outcome'],
    help: 'Model provider calls (completions, streams, embeddings) by provider, catalog model and outcome (ok, error, aborted)',
  },
  providerTokens: {
    name: 'waggle_provider_tokens_total',
    type: 'counter',
    labels: ['provider', 'model', 'type'],
    help: 'Tokens the providers counted, by type (input, output)',
  },
  providerErrors: {
    name: 'waggle_provider_errors_total',
    type: 'counter',
    labels: ['provider', 'model', 'error_code'],
    help: 'Failed provider calls by catalog error code',
  },
  callbackDeliveries: {
    name: 'waggle_callback_deliveries_total',
    type: 'counter',
    labels: ['outcome'],
    help: 'Callback delivery attempts by outcome: delivered, retried (another attempt follows), dead_lettered (no attempt left, or 410 Gone), refused (the URL policy)',
  },
  callbackAttempts: {
    name: 'waggle_callback_delivery_attempts',
    type: 'histogram',
    labels: ['outcome'],
    help: 'Attempts a callback delivery took, observed once when it ends (delivered, dead_lettered or refused)',
  },
  meterRefusals: {
    name: 'waggle_meter_refusals_total',
    type: 'counter',
    labels: ['reason'],
    help: "Requests the gateway's API meter refused: daily_limit (the plan's rate_limit_per_day) or meter_unavailable (Redis away: 503)",
  },
  governanceRefusals: {
    name: 'waggle_governance_refusals_total',
    type: 'counter',
    labels: ['scope', 'reason'],
    help: "Requests the gateway's usage governance refused before their run, by scope kind (workspace, api_key, user) and reason: requests_per_minute or tokens_per_minute (429 too_many_requests), budget (422 account_credit_cap_reached)",
  },
  governanceSpend: {
    name: 'waggle_governance_spend_micros_total',
    type: 'counter',
    labels: ['scope'],
    help: 'Run cost reconciled into spend counters (micro-USD), by scope kind: workspace (every run), api_key (runs started with a key), user (runs with an end user)',
  },
  overloadShed: {
    name: 'waggle_overload_shed_total',
    type: 'counter',
    labels: ['intake', 'reason'],
    help: "Requests refused at once as overload (503 upstream_request_failed with Retry-After) instead of queued: intake http (the gateway) or rpc (a service's NATS requests); reason in_flight (MAX_HTTP_IN_FLIGHT or MAX_RPC_IN_FLIGHT reached) or event_loop_delay (MAX_EVENT_LOOP_DELAY_MS passed)",
  },
  inFlight: {
    name: 'waggle_in_flight_requests',
    type: 'gauge',
    labels: ['intake'],
    help: "Requests this process is serving, as its overload bound counts them: intake http (the gateway, streams until they end, /health/* never) or rpc (a service's NATS requests, streams until they end)",
  },
  eventLoopDelay: {
    name: 'waggle_event_loop_delay_seconds',
    type: 'gauge',
    labels: [],
    help: 'The event-loop delay the overload check compares with MAX_EVENT_LOOP_DELAY_MS: the time-weighted mean gap between two turns of the loop over the last second (read every 250 ms), less the 10 ms sampling resolution (from the first request on, whether or not MAX_EVENT_LOOP_DELAY_MS sheds by it)',
  },
  ledgerPending: {
    name: 'waggle_ledger_pending_records',
    type: 'gauge',
    labels: [],
    help: 'Run records this process holds because the ledger stream has not taken them yet',
  },
  ledgerLag: {
    name: 'waggle_ledger_lag_seconds',
    type: 'gauge',
    labels: [],
    help: 'How long records have been waiting for the ledger stream without a break (0 when none waits)',
  },
  processCpu: {
    name: 'process_cpu_seconds_total',
    type: 'counter',
    labels: [],
    help: 'User and system CPU time the process spent',
  },
  processResidentMemory: {
    name: 'process_resident_memory_bytes',
    type: 'gauge',
    labels: [],
    help: 'Resident set size',
  },
  processStartTime: {
    name: 'process_start_time_seconds',
    type: 'gauge',
    labels: [],
    help: 'When the process started, in seconds since the epoch',
  },
} as const;

export type WaggleMetricKey = keyof typeof WAGGLE_METRICS;

/**
 * The runtime series OpenTelemetry's Node.js runtime instrumentation exports (event loop delay
 * and utilization, V8 heap, GC), as Prometheus names them.
 */
export const RUNTIME_METRIC_NAMES = [
  'nodejs_eventloop_delay_min',
  'nodejs_eventloop_delay_max',
  'nodejs_eventloop_delay_mean',
  'nodejs_eventloop_delay_stddev',
  'nodejs_eventloop_delay_p50',
  'nodejs_eventloop_delay_p90',
  'nodejs_eventloop_delay_p99',
  'nodejs_eventloop_utilization',
  'nodejs_eventloop_time_total',
  'v8js_memory_heap_used',
  'v8js_memory_heap_space_size',
  'v8js_memory_heap_space_available_size',
  'v8js_memory_heap_space_physical_size',
  'v8js_resource_active',
  'v8js_gc_duration',
] as const;

/** Every sample name a scrape may hold: histograms as their _bucket, _count and _sum series, plus target_info. */
export function exportedSeriesNames(): string[] {
  const names = ['target_info'];
  const histograms = new Set(['v8js_gc_duration']);
  for (const metric of Object.values(WAGGLE_METRICS)) {
    if (metric.type === 'histogram') histograms.add(metric.name);
    else names.push(metric.name);
  }
  for (const name of RUNTIME_METRIC_NAMES) if (!histograms.has(name)) names.push(name);
  for (const name of histograms) names.push(`${name}_bucket`, `${name}_count`, `${name}_sum`);
  return names;
}
