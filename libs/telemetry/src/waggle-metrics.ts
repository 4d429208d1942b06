import { metrics, ValueType, type Counter, type Histogram, type Meter, type ObservableGauge } from '@opentelemetry/api';
import { WAGGLE_METRICS } from './metric-names';

/** Request and RPC durations: 5 ms to the five minutes a synchronous invoke may take. */
const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Model calls: from a fast embedding to a long reasoning turn. */
const PROVIDER_BUCKETS_S = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];
/** Attempts per callback delivery (the default retry schedule allows a few dozen at most). */
const ATTEMPT_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30];

export interface WaggleInstruments {
  httpServerDuration: Histogram;
  rpcClientDuration: Histogram;
  rpcServerDuration: Histogram;
  providerDuration: Histogram;
  providerTokens: Counter;
  providerErrors: Counter;
  callbackDeliveries: Counter;
  callbackAttempts: Histogram;
  meterRefusals: Counter;
  governanceRefusals: Counter;
  governanceSpend: Counter;
  overloadShed: Counter;
  inFlight: ObservableGauge;
  eventLoopDelay: ObservableGauge;
  queueJobs: ObservableGauge;
  queueOldestWaitingAge: ObservableGauge;
  ledgerPending: ObservableGauge;
  ledgerLag: ObservableGauge;
}

function histogram(meter: Meter, key: keyof typeof WAGGLE_METRICS, boundaries: number[], unit = 's'): Histogram {
  const { name, help } = WAGGLE_METRICS[key];
  return meter.createHistogram(name, { description: help, unit, advice: { explicitBucketBoundaries: boundaries } });
}

function counter(meter: Meter, key: keyof typeof WAGGLE_METRICS): Counter {
  const { name, help } = WAGGLE_METRICS[key];
  return meter.createCounter(name, { description: help, valueType: ValueType.INT });
}

function gauge(meter: Meter, key: keyof typeof WAGGLE_METRICS, unit?: string): ObservableGauge {
  const { name, help } = WAGGLE_METRICS[key];
  return meter.createObservableGauge(name, { description: help, ...(unit && { unit }) });
}

/** The instruments on a given meter (waggleMetrics uses the global one; tests a meter of their own). */
export function createInstruments(meter: Meter): WaggleInstruments {
  return {
    httpServerDuration: histogram(meter, 'httpServerDuration', DURATION_BUCKETS_S),
    rpcClientDuration: histogram(meter, 'rpcClientDuration', DURATION_BUCKETS_S),
    rpcServerDuration: histogram(meter, 'rpcServerDuration', DURATION_BUCKETS_S),
    providerDuration: histogram(meter, 'providerDuration', PROVIDER_BUCKETS_S),
    providerTokens: counter(meter, 'providerTokens'),
    providerErrors: counter(meter, 'providerErrors'),
    callbackDeliveries: counter(meter, 'callbackDeliveries'),
    callbackAttempts: histogram(meter, 'callbackAttempts', ATTEMPT_BUCKETS, '{attempt}'),
    meterRefusals: counter(meter, 'meterRefusals'),
    governanceRefusals: counter(meter, 'governanceRefusals'),
    governanceSpend: counter(meter, 'governanceSpend'),
    overloadShed: counter(meter, 'overloadShed'),
    inFlight: gauge(meter, 'inFlight', '{request}'),
    eventLoopDelay: gauge(meter, 'eventLoopDelay', 's'),
    queueJobs: gauge(meter, 'queueJobs', '{job}'),
    queueOldestWaitingAge: gauge(meter, 'queueOldestWaitingAge', 's'),
    ledgerPending: gauge(meter, 'ledgerPending', '{record}'),
    ledgerLag: gauge(meter, 'ledgerLag', 's'),
  };
}

let instruments: WaggleInstruments | undefined;

/**
 * Waggle's instruments, each created once per process and recorded at one shared place (the
 * RPC client and server, the provider calls, the queue worker…). Created on first use from the
 * global meter provider, which startTelemetry sets before anything else loads; without it
 * (OTEL_SDK_DISABLED, unit tests) they are OpenTelemetry's no-op instruments.
 */
export function waggleMetrics(): WaggleInstruments {
  instruments ??= createInstruments(metrics.getMeter('waggle'));
  return instruments;
}

/** Seconds since a `performance.now()` reading: what every duration histogram records. */
export function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}

/** The meter Waggle's instruments belong to, for callbacks that observe several gauges at once. */
export function waggleMeter(): Meter {
  return metrics.getMeter('waggle');
}
