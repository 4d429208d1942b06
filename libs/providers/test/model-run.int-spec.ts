import { FakeProviderServer, type FakeRequestRecord } from '@waggle/fake-provider';
import { WaggleException } from '@waggle/errors';
import { ModelRun, ProviderRegistry, providerSettingsFromEnv, type ModelRoute, type PromptCall, type StreamPart } from '../src';

const compatible = (modelId: string, extra: Partial<ModelRoute> = {}): ModelRoute => ({
  modelId,
  provider: 'fake',
  providerName: 'Fake Host',
  providerApi: 'openai-compatible',
  providerModelId: `${modelId}-upstream`,
  ...extra,
});
const anthropic = (modelId: string): ModelRoute => ({
  modelId,
  provider: 'anthropic',
  providerName: 'Anthropic',
  providerApi: 'anthropic',
  providerModelId: `${modelId}-upstream`,
});

const PRIMARY = compatible('primary');
const SECOND = anthropic('second');
const THIRD = compatible('third');

const call = (extra: Partial<PromptCall> = {}): PromptCall => ({
  messages: [{ role: 'user', content: 'Say hello' }],
  ...extra,
  params: { maxOutputTokens: 100, ...extra.params },
});

const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const FORMAT = { type: 'json_schema' as const, name: 'place', schema: SCHEMA };

async function collect(parts: AsyncIterable<StreamPart>): Promise<{ parts: StreamPart[]; error?: unknown }> {
  const seen: StreamPart[] = [];
  try {
    for await (const part of parts) seen.push(part);
    return { parts: seen };
  } catch (error) {
    return { parts: seen, error };
  }
}

describe('ModelRun: fallbacks and structured output against the fake provider', () => {
  const server = new FakeProviderServer();
  let registry: ProviderRegistry;
  /** The same providers with a short first-byte time-out, for the held model that never answers. */
  let impatient: ProviderRegistry;
  const calledModels = (): string[] => server.requests.map((record: FakeRequestRecord) => record.model);

  beforeAll(async () => {
    const url = await server.start();
    const env = {
      FAKE_API_KEY: 'k',
      FAKE_BASE_URL: `${url}/v1`,
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: `${url}/v1`,
      PROVIDER_MAX_RETRIES: 0,
    };
    // The default time-out (60 s) where models answer: a slow machine never makes them switch.
    registry = new ProviderRegistry(providerSettingsFromEnv({ ...env, PROVIDER_FIRST_BYTE_TIMEOUT_MS: 60_000 }));
    impatient = new ProviderRegistry(providerSettingsFromEnv({ ...env, PROVIDER_FIRST_BYTE_TIMEOUT_MS: 300 }));
  });
  afterAll(() => server.stop());
  afterEach(() => server.reset());

  it.each([429, 500, 503])('answers with the next model when the first answers %s, and lists both attempts', async (status) => {
    server.setModel('primary-upstream', { error: { status } });
    server.setModel('second-upstream', { response: 'Hello from the fallback' });
    const run = new ModelRun(registry, [PRIMARY, SECOND, THIRD]);
    const result = await run.complete(call());
    expect(result.response).toBe('Hello from the fallback');
    expect(result.model).toBe('second');
    expect(run.route.modelId).toBe('second');
    expect(result.attempts).toEqual([
      { model: 'primary', error_code: status === 429 ? 'rate_limited' : 'provider_unavailable', status, duration_ms: expect.any(Number) },
      { model: 'second', error_code: null, duration_ms: expect.any(Number) },
    ]);
    expect(calledModels()).toEqual(['primary-upstream', 'second-upstream']);
  });

  it('streams from the next model when the first fails before its first byte', async () => {
    server.setModel('primary-upstream', { error: { status: 429 } });
    server.setModel('second-upstream', { response: 'one two three' });
    const run = new ModelRun(registry, [PRIMARY, SECOND]);
    const { parts, error } = await collect(run.stream(call()));
    expect(error).toBeUndefined();
    expect(
      parts
        .filter((part) => part.type === 'response')
        .map((part) => (part as { text: string }).text)
        .join(''),
    ).toBe('one two three');
    expect(parts.at(-1)?.type).toBe('finish');
    expect(run.attempts.map((attempt) => [attempt.model, attempt.error_code])).toEqual([
      ['primary', 'rate_limited'],
      ['second', null],
    ]);
  });

  it.each(['whole', 'streamed'])('gives up on a model that sends no first byte in time (%s) and asks the next', async (mode) => {
    const release = server.hold('primary-upstream');
    try {
      server.setModel('second-upstream', { response: 'late but here' });
      const run = new ModelRun(impatient, [PRIMARY, SECOND]);
      const text =
        mode === 'whole'
          ? (await run.complete(call())).response
          : (await collect(run.stream(call()))).parts
              .filter((part) => part.type === 'response')
              .map((part) => (part as { text: string }).text)
              .join('');
      expect(text).toBe('late but here');
      expect(run.attempts.map((attempt) => [attempt.model, attempt.error_code])).toEqual([
        ['primary', 'timeout'],
        ['second', null],
      ]);
    } finally {
      release();
    }
  });

  it('does not switch once a stream has sent its first fragment', async () => {
    server.setModel('primary-upstream', { response: 'a b c d e f', failAfterFragments: 2 });
    server.setModel('second-upstream', { response: 'never' });
    const run = new ModelRun(registry, [PRIMARY, SECOND]);
    const { parts, error } = await collect(run.stream(call()));
    expect(parts.map((part) => part.type)).toEqual(['response', 'response']);
    expect(error).toBeInstanceOf(WaggleException);
    expect((error as WaggleException).code).toBe('provider_error');
    expect(calledModels()).toEqual(['primary-upstream']);
    expect(run.attempts.map((attempt) => [attempt.model, attempt.error_code])).toEqual([['primary', 'connection_failed']]);
  });

  it('does not switch on a refusal (4xx), and the last failure lists every attempt', async () => {
    server.setModel('primary-upstream', { error: { status: 400, message: 'bad request' } });
    const refused = new ModelRun(registry, [PRIMARY, SECOND]);
    const refusal = await refused.complete(call()).catch((error: unknown) => error as WaggleException);
    expect(refusal).toMatchObject({ code: 'provider_error', details: { status: 400 } });
    expect(calledModels()).toEqual(['primary-upstream']);

    server.reset();
    server.setModel('primary-upstream', { error: { status: 500 } });
    server.setModel('second-upstream', { error: { status: 503 } });
    const failing = new ModelRun(registry, [PRIMARY, SECOND]);
    const failure = await failing.complete(call()).catch((error: unknown) => error as WaggleException);
    expect(failure).toMatchObject({ code: 'provider_error', details: { status: 503 } });
    expect((failure as WaggleException).details).toMatchObject({
      attempts: [
        { model: 'primary', error_code: 'provider_unavailable', status: 500 },
        { model: 'second', error_code: 'provider_unavailable', status: 503 },
      ],
    });
  });

  it('does not fall back when the caller aborts, and later calls of a run start at the model that answered', async () => {
    const release = server.hold('primary-upstream');
    const controller = new AbortController();
    const aborted = new ModelRun(registry, [PRIMARY, SECOND]).complete(call({ abortSignal: controller.signal }));
    await server.waitForRequest((record) => record.model === 'primary-upstream');
    controller.abort(new DOMException('gone', 'AbortError'));
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    release();
    expect(calledModels()).toEqual(['primary-upstream']);

    server.reset();
    server.setModel('primary-upstream', { error: { status: 429 } });
    const run = new ModelRun(registry, [PRIMARY, SECOND]);
    await run.complete(call());
    await run.complete(call());
    expect(calledModels()).toEqual(['primary-upstream', 'second-upstream', 'second-upstream']);
  });

  describe('structured output', () => {
    it('asks a model without native support in words, and takes a valid answer as is', async () => {
      server.setModel('primary-upstream', { response: '{"city":"Paris"}' });
      const run = new ModelRun(registry, [PRIMARY]);
      const result = await run.complete(call({ params: { responseFormat: FORMAT } }));
      expect(result.response).toBe('{"city":"Paris"}');
      expect(result.attempts).toHaveLength(1);
      const body = server.requests[0].body as { messages: Array<{ role: string; content: string }>; response_format?: unknown };
      expect(body.response_format).toBeUndefined();
      expect(body.messages[0].role).toBe('system');
      expect(body.messages[0].content).toContain('"required":["city"]');
    });

    it('asks a model with native support for json_schema, with the strict flag as set', async () => {
      server.setModel('native-upstream', { response: '{"city":"Rome"}' });
      const run = new ModelRun(registry, [compatible('native', { nativeJsonSchema: true })]);
      await run.complete(call({ params: { responseFormat: { ...FORMAT, strict: true } } }));
      const body = server.requests[0].body as { response_format?: unknown };
      expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'place', schema: SCHEMA, strict: true } });
    });

    it('repairs once with the violations, then fails with 502 provider_error listing them', async () => {
      server.setModel('primary-upstream', { response: '{"town":"Paris"}' });
      const run = new ModelRun(registry, [PRIMARY]);
      const failure = (await run
        .complete(call({ params: { responseFormat: FORMAT } }))
        .catch((error: unknown) => error)) as WaggleException;
      expect(failure).toBeInstanceOf(WaggleException);
      expect(failure).toMatchObject({ code: 'provider_error', status: 502 });
      expect(failure.details).toMatchObject({
        model: 'primary',
        violations: expect.arrayContaining([
          { path: '/city', message: "must have required property 'city'" },
          { path: '', message: 'must NOT have additional properties' },
        ]),
        attempts: [
          { model: 'primary', error_code: null, violations: 2 },
          { model: 'primary', error_code: null, repair: true, violations: 2 },
        ],
      });
      const repair = server.requests[1].body as { messages: Array<{ role: string; content: string }> };
      expect(repair.messages.at(-2)).toEqual({ role: 'assistant', content: '{"town":"Paris"}' });
      expect(repair.messages.at(-1)?.content).toContain("/city: must have required property 'city'");
    });

    it('asks Anthropic through its forced json tool, and a repair fixes an answer invalid once', async () => {
      server.setModel('second-upstream', { json: { answer: 'invalid_once', value: { city: 'Lisbon' } } });
      const run = new ModelRun(registry, [{ ...SECOND, nativeJsonSchema: true }]);
      const result = await run.complete(call({ params: { responseFormat: FORMAT } }));
      expect(JSON.parse(result.response)).toEqual({ city: 'Lisbon' });
      expect(result.attempts).toMatchObject([
        { model: 'second', error_code: null, violations: 1 },
        { model: 'second', error_code: null, repair: true },
      ]);
      expect(server.requests.map((record) => [record.structured, record.jsonAnswer])).toEqual([
        ['json_tool', 'invalid'],
        ['json_tool', 'valid'],
      ]);
    });

    it('fails a streamed answer that does not match at its end, before the finish part', async () => {
      server.setModel('primary-upstream', { response: 'not json at all' });
      const run = new ModelRun(registry, [PRIMARY]);
      const { parts, error } = await collect(run.stream(call({ params: { responseFormat: FORMAT } })));
      expect(parts.some((part) => part.type === 'finish')).toBe(false);
      expect(parts.filter((part) => part.type === 'response').length).toBeGreaterThan(0);
      expect(error).toMatchObject({ code: 'provider_error', details: { violations: [{ path: '', message: 'is not JSON' }] } });
    });
  });
});
