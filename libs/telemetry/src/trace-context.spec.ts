import { context, INVALID_SPAN_CONTEXT, propagation, ROOT_CONTEXT, trace, TraceFlags, type TextMapGetter } from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import {
  activeTraceId,
  injectTraceContext,
  parseTraceparent,
  runInTraceContext,
  setManualHttpTraceContext,
  traceresponseOf,
} from './trace-context';

const getter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key],
};

const traceId = '0af7651916cd43dd8448eb211c80319c';
const spanId = 'b7ad6b7169203331';

describe('the traceparent read by hand', () => {
  it.each<[string, IncomingHttpHeaders]>([
    ['sampled', { traceparent: `00-${traceId}-${spanId}-01` }],
    ['not sampled', { traceparent: `00-${traceId}-${spanId}-00` }],
    ['with tracestate', { traceparent: `00-${traceId}-${spanId}-01`, tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE' }],
    ['a later version with more fields', { traceparent: `01-${traceId}-${spanId}-01-extra` }],
    ['version 00 with more fields', { traceparent: `00-${traceId}-${spanId}-01-extra` }],
    ['version ff', { traceparent: `ff-${traceId}-${spanId}-01` }],
    ['zero trace id', { traceparent: `00-${'0'.repeat(32)}-${spanId}-01` }],
    ['zero span id', { traceparent: `00-${traceId}-${'0'.repeat(16)}-01` }],
    ['upper case', { traceparent: `00-${traceId.toUpperCase()}-${spanId}-01` }],
    ['too short', { traceparent: `00-${traceId}-${spanId.slice(1)}-01` }],
    ['garbage', { traceparent: 'hello' }],
    ['absent', {}],
  ])('reads %s as the W3C propagator does', (_name, headers) => {
    const expected = trace.getSpanContext(new W3CTraceContextPropagator().extract(ROOT_CONTEXT, headers, getter));
    const parsed = parseTraceparent(headers);
    expect(parsed && { ...parsed, traceState: parsed.traceState?.serialize() }).toEqual(
      expected && { ...expected, traceState: expected.traceState?.serialize() },
    );
  });
});

describe('the trace context of a request without an exporter', () => {
  const request = (url: string, headers: IncomingHttpHeaders = {}) => ({ url, headers }) as IncomingMessage;
  const activeSpanContext = (incoming: IncomingMessage) => {
    const seen: Array<ReturnType<typeof trace.getActiveSpan>> = [];
    runInTraceContext(incoming, () => seen.push(trace.getActiveSpan()));
    expect(seen).toHaveLength(1);
    return seen[0]?.spanContext();
  };

  beforeAll(() => {
    // The async-hooks context manager, as NodeTracerProvider.register() installs it.
    const { AsyncLocalStorageContextManager } = jest.requireActual<typeof import('@opentelemetry/context-async-hooks')>(
      '@opentelemetry/context-async-hooks',
    );
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    setManualHttpTraceContext(false);
    context.disable();
  });

  it('does nothing when the HTTP instrumentation is in charge', () => {
    setManualHttpTraceContext(false);
    expect(activeSpanContext(request('/v1/invoke', { traceparent: `00-${traceId}-${spanId}-01` }))).toBeUndefined();
  });

  it("continues the caller's trace with a span of its own, not sampled", () => {
    setManualHttpTraceContext(true);
    const span = activeSpanContext(request('/v1/invoke', { traceparent: `00-${traceId}-${spanId}-01` }));
    expect(span).toMatchObject({ traceId, traceFlags: TraceFlags.NONE });
    expect(span).not.toMatchObject({ spanId });
  });

  it('starts a trace when the caller sent none, and none for a probe', () => {
    setManualHttpTraceContext(true);
    expect(activeSpanContext(request('/v1/invoke'))).toMatchObject({ traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(activeSpanContext(request('/health/ready'))).toBeUndefined();
    expect(activeSpanContext(request('/health/ready', { traceparent: `00-${traceId}-${spanId}-01` }))).toMatchObject({ traceId });
  });
});

describe('the trace context an answer and a callback carry', () => {
  const TRACEPARENT_FORMAT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

  beforeAll(() => {
    const { AsyncLocalStorageContextManager } = jest.requireActual<typeof import('@opentelemetry/context-async-hooks')>(
      '@opentelemetry/context-async-hooks',
    );
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => context.disable());

  const inTrace = <T>(work: () => T, traceFlags = TraceFlags.SAMPLED, traceState?: string): T =>
    context.with(
      trace.setSpan(
        ROOT_CONTEXT,
        trace.wrapSpanContext({ traceId, spanId, traceFlags, ...(traceState && { traceState: new TraceState(traceState) }) }),
      ),
      work,
    );

  it("answers with the serving span's ids and flags", () => {
    expect(traceresponseOf({ traceId, spanId, traceFlags: TraceFlags.SAMPLED })).toBe(`00-${traceId}-${spanId}-01`);
    expect(traceresponseOf({ traceId, spanId, traceFlags: TraceFlags.NONE })).toBe(`00-${traceId}-${spanId}-00`);
  });

  it('answers with a fresh unsampled pair when no span served the request', () => {
    for (const span of [undefined, { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }]) {
      const [, freshTrace, freshSpan, flags] = TRACEPARENT_FORMAT.exec(traceresponseOf(span)) ?? [];
      expect(freshTrace).not.toBe('0'.repeat(32));
      expect(freshSpan).not.toBe('0'.repeat(16));
      expect(flags).toBe('00');
    }
  });

  it('reads the active trace id, or null outside a trace', () => {
    expect(activeTraceId()).toBeNull();
    expect(inTrace(activeTraceId)).toBe(traceId);
  });

  it('puts traceparent and tracestate on outgoing headers, never baggage', () => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const withBaggage = propagation.setBaggage(ROOT_CONTEXT, propagation.createBaggage({ secret: { value: 'do not send' } }));
    inTrace(
      () => injectTraceContext(headers, trace.setSpan(withBaggage, trace.getActiveSpan() ?? trace.wrapSpanContext(INVALID_SPAN_CONTEXT))),
      TraceFlags.NONE,
      'rojo=00f067aa0ba902b7',
    );
    expect(headers).toEqual({
      'content-type': 'application/json',
      traceparent: `00-${traceId}-${spanId}-00`,
      tracestate: 'rojo=00f067aa0ba902b7',
    });
    const outside: Record<string, string> = {};
    injectTraceContext(outside);
    expect(outside).toEqual({});
  });
});
