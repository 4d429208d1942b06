import { context, ROOT_CONTEXT, trace, TraceFlags, type TextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { parseTraceparent, runInTraceContext, setManualHttpTraceContext } from './trace-context';

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
