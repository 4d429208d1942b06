import type { ObservableCallback } from '@opentelemetry/api';
import { waggleMetrics } from '@waggle/telemetry';
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';

/** Why a request was refused: its intake's bound on requests in flight was reached, or the event loop lags past its limit. */
export const SHED_REASONS = ['in_flight', 'event_loop_delay'] as const;
export type ShedReason = (typeof SHED_REASONS)[number];

/** Where a process takes requests: the gateway's HTTP server, or a service's NATS subscriptions. */
export type Intake = 'http' | 'rpc';

export interface AdmissionLimits {
  /** Requests served at once; one more is refused. */
  maxInFlight: number;
  /** Event-loop delay (ms, see EventLoopDelay) past which every new request is refused; 0: not checked. */
  maxEventLoopDelayMs: number;
}

/**
 * The `Retry-After` of an overload refusal (seconds): long enough for the replica's in-flight
 * work to drain (a fast request takes milliseconds), short enough that a client retrying at
 * once against another replica, or this one a second later, loses little. Clients add their
 * own backoff and jitter on top.
 */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

/**
 * Whether one more request may start: undefined when it may, otherwise why not. Requests
 * already in flight are never touched; only new ones are refused.
 */
export function shedReason(inFlight: number, eventLoopDelayMs: number, limits: AdmissionLimits): ShedReason | undefined {
  if (inFlight >= limits.maxInFlight) return 'in_flight';
  if (limits.maxEventLoopDelayMs > 0 && eventLoopDelayMs > limits.maxEventLoopDelayMs) return 'event_loop_delay';
  return undefined;
}

/** How often perf_hooks' native timer samples the loop (ms): its default, and the floor of what can be seen. */
const SAMPLE_RESOLUTION_MS = 10;
/** How often the delay is read (ms). */
const WINDOW_MS = 250;
/**
 * How many readings the delay is judged over: the last second. One long task (a large body
 * parsed, a garbage collection) does not make a second of delay; a loop that is behind does.
 */
const WINDOWS_JUDGED = 4;

/** One reading of perf_hooks' histogram of the gaps between two turns of its native timer (each gap includes the resolution). */
export interface DelayWindow {
  count: number;
  meanNs: number;
  stddevNs: number;
}

/**
 * The event-loop delay over some readings: the gaps' time-weighted mean, Σd²/Σd, less the
 * resolution (each reading gives Σd = nμ and Σd² = n(σ² + μ²)). A request arriving at a random
 * moment lands in a gap with a chance proportional to its length, so this is the gap it finds
 * itself in. The plain mean would let a few long turns vanish among the many short ones a
 * half-idle loop also records.
 */
export function timeWeightedDelayMs(windows: readonly DelayWindow[]): number {
  let sum = 0;
  let sumOfSquares = 0;
  for (const { count, meanNs, stddevNs } of windows) {
    if (!(count > 0 && meanNs > 0)) continue;
    sum += count * meanNs;
    sumOfSquares += count * (stddevNs * stddevNs + meanNs * meanNs);
  }
  return sum > 0 ? Math.max(0, sumOfSquares / sum / 1e6 - SAMPLE_RESOLUTION_MS) : 0;
}

/**
 * This process's event-loop delay, read every WINDOW_MS by an unref'd timer (it never keeps a
 * process alive) from perf_hooks' native histogram and judged over the last WINDOWS_JUDGED
 * readings: one sampler per process, started by the first request an intake is asked to admit
 * (whether or not it sheds by the delay), so the long turns of a process starting up (modules loading, Nest
 * assembling the app) never count. A loop that is blocked cannot read it either; the reading
 * taken when it turns again (timers run before the I/O the turn then serves) covers the block,
 * so the requests waiting behind it are judged by it.
 */
class EventLoopDelay {
  private histogram?: ELDHistogram;
  private readonly windows: DelayWindow[] = [];
  private delay = 0;

  /** The delay over the last second (ms). */
  get delayMs(): number {
    return this.delay;
  }

  start(): void {
    if (this.histogram) return;
    const histogram = monitorEventLoopDelay({ resolution: SAMPLE_RESOLUTION_MS });
    histogram.enable();
    this.histogram = histogram;
    setInterval(() => {
      this.windows.push({ count: histogram.count, meanNs: histogram.mean, stddevNs: histogram.stddev });
      if (this.windows.length > WINDOWS_JUDGED) this.windows.shift();
      histogram.reset();
      this.delay = timeWeightedDelayMs(this.windows);
    }, WINDOW_MS).unref();
    waggleMetrics().eventLoopDelay.addCallback((result) => result.observe(this.delay / 1000));
  }
}

const eventLoopDelay = new EventLoopDelay();

/**
 * One intake's admission: counts its requests in flight and refuses a new one past the bounds
 * (shedReason), recording refusals in `waggle_overload_shed_total` and the count in
 * `waggle_in_flight_requests`. The caller calls `leave()` exactly once for every admitted request.
 */
export class Admission {
  private count = 0;
  private readonly observeCount: ObservableCallback;

  constructor(
    private readonly intake: Intake,
    private readonly limits: AdmissionLimits,
  ) {
    this.observeCount = (result) => result.observe(this.count, { intake });
    waggleMetrics().inFlight.addCallback(this.observeCount);
    // Every series from the start, at 0: a rate or an alert on it reads 0, not "no data", before the first refusal.
    for (const reason of SHED_REASONS) waggleMetrics().overloadShed.add(0, { intake, reason });
  }

  /** Stops reporting the count (the intake is closed). */
  close(): void {
    waggleMetrics().inFlight.removeCallback(this.observeCount);
  }

  get inFlight(): number {
    return this.count;
  }

  /** Admits one request (counted until `leave`), or says why it is refused (not counted). */
  enter(): ShedReason | undefined {
    // Measured (and exported) whether or not this intake sheds by it: the services' check is off by default.
    eventLoopDelay.start();
    const refused = shedReason(this.count, eventLoopDelay.delayMs, this.limits);
    if (refused) {
      waggleMetrics().overloadShed.add(1, { intake: this.intake, reason: refused });
      return refused;
    }
    this.count += 1;
    return undefined;
  }

  leave(): void {
    this.count -= 1;
  }
}
