import type { Attributes, AttributeValue, Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Whether model calls' messages and answers go on their spans (OTEL_GENAI_CAPTURE_CONTENT=true); read once at start. */
let captureContent = false;

export function setGenAiContentCaptured(on: boolean): void {
  captureContent = on;
}

export function genAiContentCaptured(): boolean {
  return captureContent;
}

/** The AI SDK's span of one provider request, by its `ai.operationId`, and the GenAI operation it is. */
const OPERATIONS: Record<string, string> = {
  'ai.generateText.doGenerate': 'chat',
  'ai.streamText.doStream': 'chat',
  'ai.embed.doEmbed': 'embeddings',
  'ai.embedMany.doEmbed': 'embeddings',
};

/**
 * The GenAI conventions' `gen_ai.provider.name` for the SDK's provider id (`openai.chat`,
 * `anthropic.messages`, `google.generative-ai`, `<compatible name>.chat`): its first part,
 * with Google's named as the conventions name it.
 */
function providerName(sdkProvider: AttributeValue | undefined): string | undefined {
  if (typeof sdkProvider !== 'string') return undefined;
  const name = sdkProvider.split('.')[0];
  return name === 'google' ? 'gcp.gemini' : name;
}

/**
 * Completes the AI SDK's model-call spans (its `experimental_telemetry`, which already records
 * `gen_ai.request.model`, `gen_ai.response.model`, the token usage and the finish reasons of a
 * chat call) to the OpenTelemetry GenAI conventions: `gen_ai.operation.name`,
 * `gen_ai.provider.name`, the span named `{operation} {model}` (`chat gpt-4o`), and for an
 * embedding call the request model and `gen_ai.usage.input_tokens`, which the SDK records only
 * as `ai.usage.tokens`. Everything else about the span stays the SDK's, so tools that know its
 * `ai.*` attributes (Langfuse's AI SDK support) still read it.
 */
export class GenAiSpanProcessor implements SpanProcessor {
  onStart(span: Span, _parentContext: Context): void {
    const operationId = span.attributes['ai.operationId'];
    const operation = typeof operationId === 'string' ? OPERATIONS[operationId] : undefined;
    if (!operation) return;
    const model = span.attributes['ai.model.id'];
    const provider = providerName(span.attributes['ai.model.provider']);
    span.setAttributes({
      'gen_ai.operation.name': operation,
      ...(provider && { 'gen_ai.provider.name': provider }),
      ...(typeof model === 'string' && { 'gen_ai.request.model': model }),
    });
    if (typeof model === 'string') span.updateName(`${operation} ${model}`);
    if (operation === 'embeddings') mirrorEmbeddingUsage(span);
  }

  /** Nothing to do once a span ends: the attributes were set as it ran. */
  onEnd(_span: ReadableSpan): void {
    return undefined;
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The SDK sets an embedding's token count as `ai.usage.tokens` when the answer comes; the conventions call it input tokens. */
function mirrorEmbeddingUsage(span: Span): void {
  const setAttributes = span.setAttributes.bind(span);
  span.setAttributes = (attributes: Attributes) => {
    const tokens = attributes['ai.usage.tokens'];
    return setAttributes(typeof tokens === 'number' ? { ...attributes, 'gen_ai.usage.input_tokens': tokens } : attributes);
  };
}
