import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { MsgHdrs } from 'nats';

export const natsHeaderSetter: TextMapSetter<MsgHdrs> = {
  set: (headers, key, value) => headers.set(key, value),
};

export const natsHeaderGetter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (headers) => (headers ? headers.keys() : []),
  get: (headers, key) => (headers?.has(key) ? headers.get(key) : undefined),
};

const tracer = () => trace.getTracer('waggle.nats');

/** A client span for one NATS request, with its context injected into the headers. */
export function startNatsClientSpan(pattern: string, headers: MsgHdrs): Span {
  const span = tracer().startSpan(`send ${pattern}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'messaging.system': 'nats',
      'messaging.operation.type': 'send',
      'messaging.destination.name': pattern,
    },
  });
  propagation.inject(trace.setSpan(context.active(), span), headers, natsHeaderSetter);
  return span;
}

/** The server span for a received message, child of the caller's span when headers carry one. */
export function startNatsServerSpan(pattern: string, headers: MsgHdrs | undefined): { span: Span; context: Context } {
  const parent = propagation.extract(ROOT_CONTEXT, headers, natsHeaderGetter);
  const span = tracer().startSpan(
    `process ${pattern}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'process',
        'messaging.destination.name': pattern,
      },
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}
