import type { AppliedDeployment } from '@waggle/contracts';
import {
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  readSse,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from '../setup/test-env';
const isUnmetered = (response: Response) => response.headers.get('x-ratelimit-limit') === null;

const PROMPTS = `
prompts:
  - deployment: helper
    variants:
      - name: default
        model: fake-chat
        messages:
          - { role: system, content: "You answer for {{ company }}." }
          - { role: user, content: "{{ question }}" }
      - name: anthropic
        model: claude-fake-1
        messages:
          - { role: user, content: "{{ question }}" }
      - name: broken
        model: fake-broken
        messages:
          - { role: user, content: "{{ question }}" }
      - name: old
        model: fake-old
        messages:
          - { role: user, content: "{{ question }}" }
      - name: picture
        model: fake-chat
        image_inputs: [photo]
        messages:
          - { role: user, content: "Describe it" }
      - name: openai
        model: gpt-6-luna
        messages:
          - { role: user, content: "{{ question }}" }
`;

describe('prompt invoke through the whole stack, against the fake provider', () => {
  const fake = new FakeProviderServer({ reasoning: 'Thinking it over.' });
  const apps: AppProcess[] = [];
  let gateway: string;
  let key: string;
  let spanishKey: string;

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    fake.setModel('fake-broken', { error: { status: 500, message: 'upstream exploded' } });
    fake.setModel('fake-old', {});
    const env = {
      LOG_LEVEL: 'warn',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: 'fake-key',
      ANTHROPIC_BASE_URL: `${fakeUrl}/v1`,
      ANTHROPIC_API_KEY: 'fake-anthropic-key',
      OPENAI_API_KEY: '',
    };
    apps.push(
      spawnApp('catalog', await freePort(), env),
      spawnApp('invocation', await freePort(), env),
      spawnApp('gateway', await freePort(), env),
    );
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[2].baseUrl;

    // The shipped catalog plus the fake provider's models.
    await loadCatalogWithFakeModels('2099.2.1', [
      fakeModel('fake-chat'),
      fakeModel('fake-broken'),
      fakeModel('fake-old', { status: 'deprecated' }),
      fakeModel('claude-fake-1', { provider: 'anthropic', maker: 'anthropic', name: 'Claude Fake 1' }),
    ]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e invoke']);
    key = created.api_key;
    const spanish = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      'e2e invocar',
      '--language',
      'es',
    ]);
    spanishKey = spanish.api_key;
    const prompts = join(mkdtempSync(join(tmpdir(), 'waggle-invoke-')), 'prompts.yaml');
    writeFileSync(prompts, PROMPTS);
    await cliJson<AppliedDeployment[]>(['apply', '-f', prompts, '--workspace', created.workspace_id]);
    await cliJson<AppliedDeployment[]>(['apply', '-f', prompts, '--workspace', spanish.workspace_id]);
  });

  afterAll(async () => {
    // Back to the shipped catalog while the catalog service still runs.
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
  });

  const invoke = (body: unknown, path = '/v1/prompt/invoke', apiKey = key) =>
    fetch(`${gateway}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it.each(['/v1/prompt/invoke', '/v1/invoke'])('answers %s with exactly the seven fields', async (path) => {
    const response = await invoke(
      { deployment: 'helper', variant: 'default', inputs: { company: 'Acme', question: 'Is it open today?' } },
      path,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['duration', 'model', 'reasoning', 'request_id', 'response', 'stop_reason', 'usage']);
    expect(body).toMatchObject({
      request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/),
      model: 'fake-chat',
      reasoning: 'Thinking it over.',
      response: 'Echo: Is it open today?',
      stop_reason: 'completed',
      usage: {
        prompt_tokens: { total_tokens: expect.any(Number), cached_tokens: expect.any(Number) },
        completion_tokens: { total_tokens: expect.any(Number), reasoning_tokens: expect.any(Number) },
        total_tokens: expect.any(Number),
      },
    });
    expect(typeof body.duration).toBe('number');
    // The system prompt was rendered from the inputs.
    const sent = fake.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
    expect(sent.messages[0]).toMatchObject({ role: 'system', content: 'You answer for Acme.' });
  });

  it('runs Anthropic-protocol models too', async () => {
    const response = await invoke({ deployment: 'helper', variant: 'anthropic', inputs: { question: 'Hi' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      model: 'claude-fake-1',
      response: 'Echo: Hi',
      reasoning: 'Thinking it over.',
      stop_reason: 'completed',
    });
  });

  it.each([
    ['a missing deployment', { variant: 'default' }, 422, 'missing_required_field'],
    ['a missing variant', { deployment: 'helper' }, 422, 'missing_required_field'],
    ['inputs that are not an object', { deployment: 'helper', variant: 'default', inputs: ['x'] }, 422, 'validation_error'],
    ['a non-boolean streaming', { deployment: 'helper', variant: 'default', streaming: 'yes' }, 422, 'validation_error'],
    ['nested metadata', { deployment: 'helper', variant: 'default', metadata: { a: { b: 1 } } }, 422, 'validation_error'],
    ['array metadata', { deployment: 'helper', variant: 'default', metadata: { a: [1] } }, 422, 'validation_error'],
    [
      'top-level image_urls',
      { deployment: 'helper', variant: 'default', image_urls: ['https://example.com/a.png'] },
      422,
      'validation_error',
    ],
    [
      'top-level attachments',
      { deployment: 'helper', variant: 'default', attachments: ['https://example.com/a.pdf'] },
      422,
      'validation_error',
    ],
    ['an unknown deployment', { deployment: 'nope', variant: 'default' }, 404, 'resource_not_found'],
    ['an unknown variant', { deployment: 'helper', variant: 'nope' }, 404, 'resource_not_found'],
    ['a deprecated model', { deployment: 'helper', variant: 'old' }, 422, 'model_deprecated'],
    [
      'an image for a model without vision',
      { deployment: 'helper', variant: 'picture', inputs: { photo: 'https://example.com/cat.png' } },
      422,
      'vision_not_supported',
    ],
    ['a provider without credentials', { deployment: 'helper', variant: 'openai' }, 500, 'config_error'],
  ])('refuses %s before any provider call', async (_, body, status, code) => {
    const before = fake.requests.length;
    const response = await invoke(body);
    expect(response.status).toBe(status);
    const answer = (await response.json()) as Record<string, unknown>;
    expect(answer).toMatchObject({ error_code: code, code, error: answer.message });
    expect(fake.requests.length).toBe(before);
    if (code === 'model_deprecated') expect(answer.message).toContain('Fake fake-old');
  });

  it('answers 400 invalid_request to a body that is not JSON', async () => {
    const response = await fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"deployment":',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error_code: 'invalid_request' });
  });

  it('answers 502 provider_error naming the provider when it fails', async () => {
    const response = await invoke({ deployment: 'helper', variant: 'broken', inputs: { question: 'x' } });
    expect(response.status).toBe(502);
    const body = (await response.json()) as Record<string, string>;
    expect(body).toMatchObject({ error_code: 'provider_error', code: 'provider_error' });
    expect(body.message).toContain('Fake Provider');
    expect(JSON.stringify(body)).not.toContain('fake-key');
  });

  it('streams reasoning, then response fragments, then usage, then [DONE]', async () => {
    const response = await invoke({
      deployment: 'helper',
      variant: 'default',
      streaming: true,
      inputs: { company: 'Acme', question: 'one two three' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await collectSse(response)) as Array<Record<string, unknown> | string>;
    expect(events.at(-1)).toBe('[DONE]');
    const objects = events.slice(0, -1) as Array<Record<string, unknown>>;
    const types = objects.map((event) => event.type);
    const firstResponse = types.indexOf('response');
    expect(types.lastIndexOf('reasoning')).toBeLessThan(firstResponse);
    expect(types.at(-1)).toBe('usage');
    const requestIds = new Set(objects.map((event) => event.request_id));
    expect(requestIds.size).toBe(1);
    for (const event of objects.filter((item) => item.type !== 'usage')) {
      expect(Object.keys(event).sort()).toEqual(['model', 'request_id', 'response', 'type']);
      expect(event.model).toBe('fake-chat');
    }
    expect(
      objects
        .filter((event) => event.type === 'response')
        .map((event) => event.response)
        .join(''),
    ).toBe('Echo: one two three');
    expect(
      objects
        .filter((event) => event.type === 'reasoning')
        .map((event) => event.response)
        .join(''),
    ).toBe('Thinking it over.');
    expect(objects.at(-1)).toEqual({
      request_id: expect.stringMatching(/^req_/),
      type: 'usage',
      usage: expect.objectContaining({ duration: expect.any(Number), total_tokens: expect.any(Number) }),
      stop_reason: 'completed',
    });
  });

  it('relays the first fragment while the provider is still answering (no buffering on the path)', async () => {
    // A minute between fragments: the provider cannot finish while the client holds the first.
    fake.setModel('fake-chat', { tokenDelayMs: 60_000, response: 'one two three four five six' });
    try {
      const response = await invoke({ deployment: 'helper', variant: 'default', streaming: true, inputs: { question: 'x' } });
      const reader = readSse(response);
      const first = await reader.next();
      expect(JSON.parse(first.value as string)).toMatchObject({ type: expect.stringMatching(/reasoning|response/) });
      const record = fake.requests.at(-1);
      expect(record?.finishedAt).toBeUndefined();
      // Going away ends the provider request rather than leaving it generating.
      await reader.return(undefined);
      await expectEventually(() => expect(fake.requests.find((candidate) => candidate.id === record?.id)?.aborted).toBe(true));
    } finally {
      fake.setModel('fake-chat', {});
    }
  });

  it('answers a stream whose run cannot start with a JSON error, not an empty stream', async () => {
    const response = await invoke({ deployment: 'helper', variant: 'old', streaming: true });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error_code: 'model_deprecated' });
  });

  it('sends one error event and ends the stream when the provider fails after it opened', async () => {
    fake.setModel('claude-fake-1', { failAfterFragments: 2, reasoning: null });
    try {
      const response = await invoke({ deployment: 'helper', variant: 'anthropic', streaming: true, inputs: { question: 'a b c d e f' } });
      expect(response.status).toBe(200);
      const events = (await collectSse(response)) as Array<Record<string, unknown> | string>;
      expect(events.at(-1)).toBe('[DONE]');
      const error = events.at(-2) as Record<string, unknown>;
      expect(error).toEqual({
        request_id: expect.stringMatching(/^req_/),
        type: 'error',
        error: expect.stringContaining('Anthropic'),
        message: expect.stringContaining('Anthropic'),
        error_code: 'provider_error',
        error_type: expect.any(String),
        status_code: 502,
        provider: 'anthropic',
      });
      expect(events.filter((event) => typeof event === 'object' && (event as { type: string }).type === 'error')).toHaveLength(1);
    } finally {
      fake.setModel('claude-fake-1', {});
    }
  });

  it("sends a Spanish workspace the stream's error event in Spanish, the provider's failure reason too", async () => {
    fake.setModel('claude-fake-1', { failAfterFragments: 2, reasoning: null });
    try {
      const body = { deployment: 'helper', variant: 'anthropic', streaming: true, inputs: { question: 'a b c d e f' } };
      const events = (await collectSse(await invoke(body, '/v1/prompt/invoke', spanishKey))) as Array<Record<string, unknown> | string>;
      const error = events.at(-2) as Record<string, unknown>;
      expect(error).toMatchObject({ type: 'error', error_code: 'provider_error', status_code: 502, provider: 'anthropic' });
      expect(error.message).toMatch(/^La solicitud a Anthropic falló: /);
      expect(error.message).not.toMatch(/request|failed|the |stream|connection/);
      expect(error.error).toBe(error.message);
      expect(Object.keys(error)).not.toContain('failure');
    } finally {
      fake.setModel('claude-fake-1', {});
    }
  });

  it('aborts the provider request when the client goes away', async () => {
    fake.setModel('fake-chat', { tokenDelayMs: 200, response: Array.from({ length: 50 }, (_, index) => `w${index}`).join(' ') });
    try {
      const controller = new AbortController();
      const response = await fetch(`${gateway}/v1/prompt/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ deployment: 'helper', variant: 'default', streaming: true, inputs: { question: 'slow' } }),
        signal: controller.signal,
      });
      const reader = readSse(response);
      await reader.next();
      const started = fake.requests.at(-1);
      controller.abort();
      // The stream would take 10 s to finish on its own, and a finished one is not marked aborted.
      await expectEventually(() => expect(fake.requests.find((record) => record.id === started?.id)?.aborted).toBe(true), {
        timeoutMs: 8_000,
        intervalMs: 20,
      });
    } finally {
      fake.setModel('fake-chat', {});
    }
  });

  it('answers the request lookup for the owner only, in the decisions shape', async () => {
    const response = await invoke({
      deployment: 'helper',
      variant: 'default',
      inputs: { question: 'look me up' },
      metadata: { source: 'e2e' },
    });
    const { request_id: requestId } = (await response.json()) as { request_id: string };
    // Right after the run, before the ledger's batch is written, the lookup already answers.
    const lookup = await fetch(`${gateway}/v1/public/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(lookup.status).toBe(200);
    const body = (await lookup.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([
      'cost_micros',
      'data',
      'ended_at',
      'generated_at',
      'label',
      'message',
      'metadata',
      'request_id',
      'request_type',
      'requestable_id',
      'requestable_type',
      'started_at',
      'status',
      'surface',
      'trace_id',
      'version',
    ]);
    expect(body).toMatchObject({
      request_id: requestId,
      status: 'completed',
      request_type: 'prompt',
      requestable_type: 'prompt_deployment',
      message: 'look me up',
      metadata: { source: 'e2e' },
      data: { response: 'Echo: look me up', reasoning: 'Thinking it over.', stop_reason: 'completed' },
    });

    const stranger = await cliJson<{ api_key: string }>(['workspace', 'create', '--name', 'e2e stranger']);
    const foreign = await fetch(`${gateway}/v1/public/requests/${requestId}`, { headers: { authorization: `Bearer ${stranger.api_key}` } });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({
      error: 'Request not found',
      message: 'Request not found',
      error_code: 'not_found',
      code: 'not_found',
    });
    const unknown = await fetch(`${gateway}/v1/public/requests/req_${'0'.repeat(32)}`, { headers: { authorization: `Bearer ${key}` } });
    expect(unknown.status).toBe(404);
  });

  /** A `traceparent` as the gateway answers it (W3C traceresponse): its trace, its own span, flags. */
  const answeredTrace = (response: Response) => {
    const header = response.headers.get('traceparent') ?? '';
    const [, traceId, spanId, flags] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header) ?? [];
    expect({ header, valid: traceId !== undefined && !/^0+$/.test(traceId) && !/^0+$/.test(spanId ?? '0') }).toEqual({
      header,
      valid: true,
    });
    return { traceId, spanId, flags };
  };

  it("answers every kind of response with a traceparent in the caller's trace: success, stream, errors, health", async () => {
    const caller = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') };
    const traceparent = `00-${caller.traceId}-${caller.spanId}-01`;
    const post = (body: string, apiKey = key) =>
      fetch(`${gateway}/v1/prompt/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', traceparent },
        body,
      });
    const valid = (extra: Record<string, unknown> = {}) =>
      JSON.stringify({ deployment: 'helper', variant: 'default', inputs: { question: 'traced' }, ...extra });
    const answers: Array<[string, number, Response]> = [
      ['success', 200, await post(valid())],
      ['stream', 200, await post(valid({ streaming: true }))],
      ['no API key', 401, await fetch(`${gateway}/v1/models`, { headers: { traceparent } })],
      ['unknown API key', 401, await post(valid(), `wgl_${randomBytes(20).toString('hex')}`)],
      ['unrouted', 404, await fetch(`${gateway}/v1/no-such-route`, { headers: { traceparent } })],
      ['body too large', 413, await post(valid({ inputs: { question: 'x'.repeat(5 * 1024 * 1024) } }))],
      ['invalid body', 422, await post(JSON.stringify({ variant: 'default' }))],
      ['provider failure', 502, await post(valid({ variant: 'broken' }))],
      ['health', 200, await fetch(`${gateway}/health/live`, { headers: { traceparent } })],
    ];
    for (const [kind, status, response] of answers) {
      await response.arrayBuffer();
      const answered = answeredTrace(response);
      expect({ kind, status: response.status, traceId: answered.traceId }).toEqual({ kind, status, traceId: caller.traceId });
      // The gateway's own span, a child of the caller's; no span is recorded without an exporter.
      expect({ kind, spanId: answered.spanId === caller.spanId, flags: answered.flags }).toEqual({ kind, spanId: false, flags: '00' });
    }
    expect(answers[1][2].headers.get('content-type')).toMatch(/^text\/event-stream/);

    // Without a caller's trace: a trace of its own, a probe too.
    const alone = [
      await invoke({ deployment: 'helper', variant: 'default', inputs: { question: 'alone' } }),
      await fetch(`${gateway}/health/ready`),
    ];
    for (const response of alone) {
      await response.arrayBuffer();
      expect(answeredTrace(response).traceId).not.toBe(caller.traceId);
    }
  });

  it("records the run's trace id in the ledger: the lookup's trace_id is the traceparent's trace id", async () => {
    const caller = randomBytes(16).toString('hex');
    const traced = await fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        traceparent: `00-${caller}-${randomBytes(8).toString('hex')}-01`,
      },
      body: JSON.stringify({ deployment: 'helper', variant: 'default', inputs: { question: 'trace me' } }),
    });
    const untraced = await invoke({ deployment: 'helper', variant: 'default', streaming: true, inputs: { question: 'trace me too' } });
    const runs = [
      { traceId: answeredTrace(traced).traceId, requestId: ((await traced.json()) as { request_id: string }).request_id },
      {
        traceId: answeredTrace(untraced).traceId,
        requestId: ((await collectSse(untraced)) as Array<{ request_id: string }>)[0].request_id,
      },
    ];
    expect(runs[0].traceId).toBe(caller);
    for (const run of runs)
      await expectEventually(async () => {
        const lookup = await fetch(`${gateway}/v1/public/requests/${run.requestId}`, { headers: { authorization: `Bearer ${key}` } });
        expect(await lookup.json()).toMatchObject({ request_id: run.requestId, status: 'completed', trace_id: run.traceId });
      });
  });

  it('records what a stream answered', async () => {
    const response = await invoke({ deployment: 'helper', variant: 'default', streaming: true, inputs: { question: 'streamed words' } });
    const events = (await collectSse(response)) as Array<Record<string, unknown>>;
    const requestId = events[0].request_id as string;
    await expectEventually(async () => {
      const lookup = (await (
        await fetch(`${gateway}/v1/public/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as Record<string, unknown>;
      expect(lookup).toMatchObject({ status: 'completed', data: { response: 'Echo: streamed words', stop_reason: 'completed' } });
    });
  });

  it('lists the workspace requests by metadata and time range on a private route, without metering', async () => {
    const since = new Date().toISOString();
    const tagged = await invoke({
      deployment: 'helper',
      variant: 'default',
      inputs: { question: 'filter me' },
      metadata: { batch: 'b-42', attempt: 3 },
    });
    const { request_id: taggedId } = (await tagged.json()) as { request_id: string };
    await invoke({ deployment: 'helper', variant: 'default', inputs: { question: 'not me' }, metadata: { batch: 'b-43' } });
    const list = async (query: string) => {
      const response = await fetch(`${gateway}/v1/private/requests?${query}`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
      return ((await response.json()) as { requests: Array<{ request_id: string }> }).requests.map((request) => request.request_id);
    };
    expect(await list(`metadata_key=batch&metadata_value=b-42&from=${since}`)).toEqual([taggedId]);
    expect(await list(`metadata_key=attempt&metadata_value=3&from=${since}`)).toEqual([taggedId]);
    expect(await list(`metadata_key=batch&from=${since}`)).toHaveLength(2);
    expect(await list(`metadata_key=batch&metadata_value=b-42&to=${since}`)).toEqual([]);
    const bad = await fetch(`${gateway}/v1/private/requests?from=yesterday`, { headers: { authorization: `Bearer ${key}` } });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ error_code: 'validation_error' });
  });

  it('accepts `user` as the official SDK sends it, records it as the user label (filterable) and never sends it to the model', async () => {
    const since = new Date().toISOString();
    const user = `sdk-user-${Date.now()}`;
    const response = await invoke({ deployment: 'helper', variant: 'default', inputs: { question: 'who asks?' }, user });
    expect(response.status).toBe(200);
    const { request_id: requestId } = (await response.json()) as { request_id: string };
    expect(JSON.stringify(fake.requests.at(-1)?.body)).not.toContain(user);
    const streamed = await invoke(
      { deployment: 'helper', variant: 'default', streaming: true, inputs: { question: 'who streams?' }, user: 'someone-else' },
      '/v1/invoke',
    );
    expect(streamed.status).toBe(200);
    await collectSse(streamed);
    const listed = await fetch(`${gateway}/v1/private/requests?user=${user}&from=${since}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(listed.status).toBe(200);
    const { requests } = (await listed.json()) as { requests: Array<{ request_id: string; user: string | null }> };
    expect(requests).toEqual([expect.objectContaining({ request_id: requestId, user })]);
    const tooLong = await invoke({ deployment: 'helper', variant: 'default', user: 'u'.repeat(257) });
    expect(tooLong.status).toBe(422);
    expect(await tooLong.json()).toMatchObject({
      error_code: 'validation_error',
      code: 'validation_error',
      details: [expect.objectContaining({ field: 'user' })],
    });
  });

  it('manages prompt deployments on private routes: apply, list, and every version of a variant', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${gateway}/v1/private/prompts${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const definition = (content: string) => ({
      prompts: [{ deployment: 'private-made', variants: [{ name: 'main', model: 'fake-chat', messages: [{ role: 'user', content }] }] }],
    });
    const first = await call('POST', '/apply', definition('Say {{ thing }}'));
    expect(first.status).toBe(200);
    expect(((await first.json()) as { prompts: AppliedDeployment[] }).prompts[0].variants[0]).toMatchObject({
      name: 'main',
      version: 1,
      changed: true,
    });
    const lastPrompt = () => (fake.requests.at(-1)?.body as { messages: Array<{ content: string }> }).messages[0].content;
    expect((await invoke({ deployment: 'private-made', variant: 'main', inputs: { thing: 'hi' } })).status).toBe(200);
    expect(lastPrompt()).toBe('Say hi');
    const second = await call('POST', '/apply', definition('Say {{ thing }} twice'));
    expect(((await second.json()) as { prompts: AppliedDeployment[] }).prompts[0].variants[0]).toMatchObject({ version: 2, changed: true });
    // The next run uses the new version at once, though the old one was just in use.
    expect((await invoke({ deployment: 'private-made', variant: 'main', inputs: { thing: 'hi' } })).status).toBe(200);
    expect(lastPrompt()).toBe('Say hi twice');
    expect(isUnmetered(second)).toBe(true);

    const listed = (await (await call('GET', '')).json()) as {
      prompts: Array<{ deployment: string; variants: Array<{ name: string; version: number; variables: string[] }> }>;
    };
    expect(listed.prompts.find((prompt) => prompt.deployment === 'private-made')?.variants).toEqual([
      expect.objectContaining({ name: 'main', version: 2, variables: ['thing'] }),
    ]);
    const versions = (await (await call('GET', '/private-made/variants/main/versions')).json()) as {
      versions: Array<{ version: number; current: boolean; messages: Array<{ content: string }> }>;
    };
    expect(versions.versions.map(({ version, current, messages }) => ({ version, current, content: messages[0].content }))).toEqual([
      { version: 2, current: true, content: 'Say {{ thing }} twice' },
      { version: 1, current: false, content: 'Say {{ thing }}' },
    ]);
    const missing = await call('GET', '/private-made/variants/nope/versions');
    expect(missing.status).toBe(404);
    const invalid = await call('POST', '/apply', { prompts: [{ deployment: 'x', variants: [] }] });
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({ error_code: 'validation_error' });
  });

  it('loses no ledger record when the invocation service stops right after a run', async () => {
    const response = await invoke({ deployment: 'helper', variant: 'default', inputs: { question: 'last words' } });
    const { request_id: requestId } = (await response.json()) as { request_id: string };
    const invocation = apps[1];
    await expect(invocation.stop('SIGTERM')).resolves.toBe(0);
    const restarted = spawnApp('invocation', invocation.port, invocation.env);
    apps[1] = restarted;
    await waitUntilLive(restarted);
    const lookup = await fetch(`${gateway}/v1/public/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(lookup.status).toBe(200);
    expect(await lookup.json()).toMatchObject({ request_id: requestId, status: 'completed', data: { response: 'Echo: last words' } });
  });

  it('keeps the metadata in the ledger and never sends it to the model', async () => {
    const response = await invoke({
      deployment: 'helper',
      variant: 'default',
      inputs: { question: 'audit me' },
      metadata: { ticket: 'T-9931', priority: 2, vip: true },
    });
    const { request_id: requestId } = (await response.json()) as { request_id: string };
    expect(JSON.stringify(fake.requests.at(-1)?.body)).not.toContain('T-9931');
    const db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    try {
      await expectEventually(async () => {
        const { rows } = await db.query<{ status: string; metadata: unknown; deployment: string; variant: string; model: string }>(
          'SELECT status, metadata, deployment, variant, model FROM invocation.requests WHERE id = $1',
          [requestId],
        );
        expect(rows[0]).toEqual({
          status: 'completed',
          metadata: { ticket: 'T-9931', priority: 2, vip: true },
          deployment: 'helper',
          variant: 'default',
          model: 'fake-chat',
        });
      });
    } finally {
      await db.end();
    }
  });
});
