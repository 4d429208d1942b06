import {
  context,
  INVALID_SPAN_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';

/**
 * Whether spans are recorded, i.e. an OTLP endpoint is set (startTelemetry). Without one,
 * nothing would read a span, so Waggle's own spans are not even started: `inSpan` runs its
 * work straight away, and the AI SDK's telemetry stays off.
 */
let recording = false;

export function setSpansRecorded(on: boolean): void {
  recording = on;
}

export function spansRecorded(): boolean {
  return recording;
}

/** What the work gets when no span is recorded: attributes set on it go nowhere. */
const UNRECORDED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

const tracer = () => trace.getTracer('waggle');

export interface SpanOptions {
  kind?: SpanKind;
  /** Spans this one follows from without being their child (a job's producer, a resumed run). */
  links?: SpanContext[];
}

/**
 * Runs `work` inside a span of its own, child of the active one, and ends it when the work
 * settles: status ERROR with `waggle.error_code` (a WaggleException's code) or the recorded
 * exception (anything else) when it throws. The span is active while the work runs, so model
 * calls, NATS requests and queries under it are its children. With no exporter this is one
 * branch: no span, no context switch.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  options: SpanOptions = {},
): Promise<T> {
  if (!recording) return work(UNRECORDED);
  const span = tracer().startSpan(name, {
    kind: options.kind ?? SpanKind.INTERNAL,
    attributes,
    ...(options.links && { links: options.links.map((link) => ({ context: link })) }),
  });
  try {
    const result = await context.with(trace.setSpan(context.active(), span), () => work(span));
    span.end();
    return result;
  } catch (error) {
    failSpan(span, error);
    throw error;
  }
}

/**
 * Starts a span the caller ends (`span.end()` or `failSpan`), for work whose end is not one
 * promise (a stream, an async generator). `run` runs code with the span active.
 */
export function startSpan(name: string, attributes: Attributes, options: SpanOptions = {}): { span: Span; run: <T>(work: () => T) => T } {
  if (!recording) return { span: UNRECORDED, run: (work) => work() };
  const span = tracer().startSpan(name, {
    kind: options.kind ?? SpanKind.INTERNAL,
    attributes,
    ...(options.links && { links: options.links.map((link) => ({ context: link })) }),
  });
  const active = trace.setSpan(context.active(), span);
  return { span, run: (work) => context.with(active, work) };
}

/** The error's catalog code when it is a WaggleException (or its wire form), else undefined. */
function errorCodeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  const status = (error as { status?: unknown }).status;
  return typeof code === 'string' && typeof status === 'number' ? code : undefined;
}

/**
 * Marks a span failed without ending it, for work that answers its failure rather than throwing
 * it (a tool's error observation, a run's failed state): a Waggle error by its code (its message
 * is the client's, and the code is what an operator filters on), anything else with its
 * exception recorded.
 */
export function markSpanFailed(span: Span, error: unknown, code = errorCodeOf(error)): void {
  span.setStatus({ code: SpanStatusCode.ERROR, ...(code && { message: code }) });
  if (code) span.setAttribute('waggle.error_code', code);
  else if (error instanceof Error) span.recordException(error);
}

/** Ends a span as failed (markSpanFailed, then end). */
export function failSpan(span: Span, error: unknown, code = errorCodeOf(error)): void {
  markSpanFailed(span, error, code);
  span.end();
}
