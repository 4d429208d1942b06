import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { GenAiSpanProcessor, setGenAiContentCaptured, setSpansRecorded } from '@waggle/telemetry';

export interface InProcessSpans {
  /** The spans ended so far, in end order. */
  spans(): ReadableSpan[];
  reset(): void;
  stop(): Promise<void>;
}

/**
 * Records the spans this test process makes, as an app with an OTLP exporter set would
 * (the GenAI processor, Waggle's own spans on, AsyncLocalStorage context), in memory: for
 * integration tests that run a library in-process rather than an app that exports.
 */
export function recordSpansInProcess(options: { captureContent?: boolean } = {}): InProcessSpans {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new GenAiSpanProcessor(), new SimpleSpanProcessor(exporter)] });
  provider.register();
  setSpansRecorded(true);
  setGenAiContentCaptured(options.captureContent ?? false);
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    stop: async () => {
      setSpansRecorded(false);
      setGenAiContentCaptured(false);
      await provider.shutdown();
      trace.disable();
    },
  };
}
