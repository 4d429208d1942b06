import { genAiContentCaptured, spansRecorded } from '@waggle/telemetry';
import type { TelemetrySettings } from 'ai';

/** Where one model call stands in its run (ModelRun): the how-manyth call, on which model of the chain, repairing or not. */
export interface CallAttempt {
  /** 1-based: the run's first call is 1, a fallback or a repair after it 2… */
  number: number;
  /** The model's place in the run's chain: 0 is the run's own model, 1 its first fallback. */
  fallbackIndex: number;
  repair?: boolean;
}

/**
 * The AI SDK's own telemetry for one call, so its spans (`ai.generateText` around the call,
 * and one `chat <model>` per provider request, with the GenAI attributes: see the telemetry
 * library's GenAiSpanProcessor) nest under whatever span is active: the prompt run, the
 * agent's turn, the workflow step. Off when no span is recorded (no exporter), so the SDK
 * does none of its attribute work. Messages, answers and tool definitions are recorded only
 * with OTEL_GENAI_CAPTURE_CONTENT=true; API keys are in the provider's client, never in them.
 * The attempt goes in the SDK's metadata (`ai.telemetry.metadata.waggle.model.*`).
 */
export function modelCallTelemetry(attempt: CallAttempt | undefined): { experimental_telemetry?: TelemetrySettings } {
  if (!spansRecorded()) return {};
  const content = genAiContentCaptured();
  return {
    experimental_telemetry: {
      isEnabled: true,
      recordInputs: content,
      recordOutputs: content,
      ...(attempt && {
        metadata: {
          'waggle.model.attempt': attempt.number,
          'waggle.model.fallback_index': attempt.fallbackIndex,
          ...(attempt.repair && { 'waggle.model.repair': true }),
        },
      }),
    },
  };
}
