import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { FakeProviderServer } from '@waggle/fake-provider';
import { inSpan } from '@waggle/telemetry';
import { recordSpansInProcess, type InProcessSpans } from '@waggle/testing';
import { embedTexts, ModelRun, ProviderRegistry, providerSettingsFromEnv, type ModelRoute, type PromptCall } from '../src';

const compatible = (modelId: string): ModelRoute => ({
  modelId,
  provider: 'fake',
  providerName: 'Fake Host',
  providerApi: 'openai-compatible',
  providerModelId: `${modelId}-upstream`,
});
const PRIMARY = compatible('primary');
const SECOND: ModelRoute = {
  modelId: 'second',
  provider: 'anthropic',
  providerName: 'Anthropic',
  providerApi: 'anthropic',
  providerModelId: 'second-upstream',
};
const EMBEDDER: ModelRoute = { ...compatible('embedder'), providerModelId: 'embedder-upstream' };

const SECRET_PROMPT = 'Tell me about the Zanzibar ledger';
const call = (): PromptCall => ({ messages: [{ role: 'user', content: SECRET_PROMPT }], params: { maxOutputTokens: 100 } });

const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const everyAttribute = (spans: ReadableSpan[]) => JSON.stringify(spans.map((span) => [span.attributes, span.events]));

/**
 * A span for every model call, from the AI SDK's own telemetry completed to the OpenTelemetry
 * GenAI conventions, one per attempt of a run with fallbacks, under the span that was active.
 */
describe('model-call spans', () => {
  const server = new FakeProviderServer();
  let registry: ProviderRegistry;
  let recorded: InProcessSpans;

  beforeAll(async () => {
    const url = await server.start();
    registry = new ProviderRegistry(
      providerSettingsFromEnv({
        FAKE_API_KEY: 'sk-fake-key-never-on-a-span',
        FAKE_BASE_URL: `${url}/v1`,
        ANTHROPIC_API_KEY: 'sk-ant-never-on-a-span',
        ANTHROPIC_BASE_URL: `${url}/v1`,
        PROVIDER_MAX_RETRIES: 0,
      }),
    );
  });
  afterAll(async () => {
    await recorded?.stop();
    await server.stop();
  });
  afterEach(async () => {
    server.reset();
    await recorded.stop();
  });

  it('gives each attempt of a fallback run its own chat span with the GenAI attributes, under the active span, without content', async () => {
    recorded = recordSpansInProcess();
    server.setModel('primary-upstream', { error: { status: 500 } });
    server.setModel('second-upstream', { response: 'The ledger is kept in Stone Town' });
    const run = new ModelRun(registry, [PRIMARY, SECOND]);
    await inSpan('step extract', {}, () => run.complete(call()));

    const spans = recorded.spans();
    const [step] = byName(spans, 'step extract');
    const operations = byName(spans, 'ai.generateText');
    expect(operations.map((span) => span.attributes['ai.telemetry.metadata.waggle.model.attempt'])).toEqual([1, 2]);
    expect(operations.map((span) => span.attributes['ai.telemetry.metadata.waggle.model.fallback_index'])).toEqual([0, 1]);
    expect(operations.every((span) => span.parentSpanContext?.spanId === step.spanContext().spanId)).toBe(true);

    const [failed] = byName(spans, 'chat primary-upstream');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'fake',
      'gen_ai.request.model': 'primary-upstream',
    });
    expect(failed.parentSpanContext?.spanId).toBe(operations[0].spanContext().spanId);

    const [answered] = byName(spans, 'chat second-upstream');
    expect(answered.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(answered.parentSpanContext?.spanId).toBe(operations[1].spanContext().spanId);
    expect(answered.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'second-upstream',
      'gen_ai.response.model': 'second-upstream',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
    });
    expect(answered.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);

    // Neither the messages nor the answer nor an API key is recorded without the opt-in.
    const recordedText = everyAttribute(spans);
    for (const secret of ['Zanzibar', 'Stone Town', 'sk-fake-key', 'sk-ant-']) expect(recordedText).not.toContain(secret);
  });

  it('records a streamed call as one chat span and an embedding call as an embeddings span with its input tokens', async () => {
    recorded = recordSpansInProcess();
    server.setModel('primary-upstream', { response: 'Streamed words' });
    const run = new ModelRun(registry, [PRIMARY]);
    for await (const part of run.stream(call())) expect(part).toBeDefined();
    await embedTexts(registry, EMBEDDER, { values: ['one text', 'another text'] });

    const spans = recorded.spans();
    const [streamed] = byName(spans, 'chat primary-upstream');
    expect(byName(spans, 'ai.streamText')).toHaveLength(1);
    expect(streamed.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.response.finish_reasons': ['stop'] });
    const [embedding] = byName(spans, 'embeddings embedder-upstream');
    expect(embedding.attributes).toMatchObject({
      'gen_ai.operation.name': 'embeddings',
      'gen_ai.provider.name': 'fake',
      'gen_ai.request.model': 'embedder-upstream',
      'gen_ai.usage.input_tokens': expect.any(Number),
    });
    expect(everyAttribute(spans)).not.toContain('another text');
  });

  it('records the messages and the answer when the operator opts in (OTEL_GENAI_CAPTURE_CONTENT)', async () => {
    recorded = recordSpansInProcess({ captureContent: true });
    server.setModel('primary-upstream', { response: 'The ledger is kept in Stone Town' });
    await new ModelRun(registry, [PRIMARY]).complete(call());
    const recordedText = everyAttribute(recorded.spans());
    expect(recordedText).toContain('Zanzibar');
    expect(recordedText).toContain('Stone Town');
    expect(recordedText).not.toContain('sk-fake-key');
  });

  it('records nothing and changes nothing when no span is recorded (no exporter)', async () => {
    recorded = recordSpansInProcess();
    await recorded.stop();
    server.setModel('primary-upstream', { response: 'Plain' });
    const result = await new ModelRun(registry, [PRIMARY]).complete(call());
    expect(result.response).toBe('Plain');
    expect(recorded.spans()).toEqual([]);
  });
});
