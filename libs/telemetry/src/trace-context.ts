import {
  context,
  defaultTextMapSetter,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** W3C trace context, version 00 (or a later version, which may carry more fields after a dash). */
const TRACEPARENT = /^\s?((?!ff)[\da-f]{2})-((?![0]{32})[\da-f]{32})-((?![0]{16})[\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;

const ids = new RandomIdGenerator();

/**
 * The caller's span context from a `traceparent` (and `tracestate`) header, as OpenTelemetry's
 * W3C propagator reads it, or undefined when there is none or it is malformed.
 */
export function parseTraceparent(headers: IncomingHttpHeaders): SpanContext | undefined {
  const header = headers.traceparent;
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const match = TRACEPARENT.exec(value);
  // Version 00 has exactly four fields.
  if (!match || (match[1] === '00' && match[5])) return undefined;
  const [, , traceId = '', spanId = '', flags = ''] = match;
  const parent: SpanContext = { traceId, spanId, traceFlags: parseInt(flags, 16), isRemote: true };
  const state = headers.tracestate;
  if (state) parent.traceState = new TraceState(Array.isArray(state) ? state.join(',') : state);
  return parent;
}

/**
 * Whether incoming HTTP requests get their trace context from `runInTraceContext` (tracing on,
 * no exporter: see startTelemetry) rather than from OpenTelemetry's HTTP instrumentation.
 */
let manual = false;

export function setManualHttpTraceContext(on: boolean): void {
  manual = on;
}

/**
 * Health probes and metric scrapes would otherwise be most of the traces a cluster produces.
 * One that arrives with a `traceparent` (someone is deliberately tracing it) is kept.
 */
export function isUntracedProbe(request: IncomingMessage): boolean {
  const url = request.url ?? '';
  return (url.startsWith('/health/') || url === '/metrics') && request.headers.traceparent === undefined;
}

/**
 * What the HTTP instrumentation gives a request when no span is recorded, in a few lines: a
 * non-recording server span, child of the caller's `traceparent` (or the root of a new trace),
 * active while `next` runs, so the trace id reaches the logs and every NATS hop. A request with
 * a `baggage` header goes through the global propagator, so baggage crosses the hops as before.
 * Calls `next` straight away when the instrumentation is on (an exporter is set) or tracing is off.
 */
export function runInTraceContext(request: IncomingMessage, next: () => void): void {
  if (!manual || isUntracedProbe(request)) return next();
  let parentContext: Context = ROOT_CONTEXT;
  let parent: SpanContext | undefined;
  if (request.headers.baggage === undefined) parent = parseTraceparent(request.headers);
  else {
    parentContext = propagation.extract(ROOT_CONTEXT, request.headers);
    parent = trace.getSpanContext(parentContext);
  }
  // As the SDK's tracer makes a span its AlwaysOffSampler drops: a new span id, the parent's
  // trace id and trace state, not sampled.
  const span = trace.wrapSpanContext({
    traceId: parent?.traceId ?? ids.generateTraceId(),
    spanId: ids.generateSpanId(),
    traceFlags: TraceFlags.NONE,
    ...(parent?.traceState && { traceState: parent.traceState }),
  });
  context.with(trace.setSpan(parentContext, span), next);
}

/**
 * The `traceparent` a server answers with (W3C Trace Context Level 2's traceresponse): the
 * trace id and span id of the span that served the request and its flags, so a client can
 * quote the trace to an operator or continue it. With no span (an untraced probe, a request
 * Node refused before it had one) a fresh unsampled pair, so every answer carries one.
 */
export function traceresponseOf(span: SpanContext | undefined): string {
  if (!span || !isSpanContextValid(span)) return `00-${ids.generateTraceId()}-${ids.generateSpanId()}-00`;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The trace id of the active span (32 hex digits), or null outside any trace: what the ledger records of a run. */
export function activeTraceId(): string | null {
  const span = trace.getSpanContext(context.active());
  return span && isSpanContextValid(span) ? span.traceId : null;
}

const w3cTraceContext = new W3CTraceContextPropagator();

/**
 * Adds the active trace context (`traceparent`, and `tracestate` when there is one) to an
 * outgoing request's headers, so a receiver outside Waggle (a callback's) can continue the
 * trace. Only those two: the global propagator would add `baggage` too, which is the caller's
 * to send, not ours. Works with a non-recording span (no exporter): it still has its ids.
 */
export function injectTraceContext(headers: Record<string, string>, from: Context = context.active()): void {
  w3cTraceContext.inject(from, headers, defaultTextMapSetter);
}
