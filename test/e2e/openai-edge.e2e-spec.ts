import {
  cliJson,
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
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The OpenAI-compatible surface's edge over raw HTTP, as a browser or a client library meets it:
 * its CORS policy (none by default; a preflight from an allowed origin echoes the headers the
 * OpenAI SDKs add), `x-request-id` on every answer, a streaming client leaving cancels its run,
 * and an idempotent repeat of a stream replays it as chunks again. The official SDK's own suite
 * is openai-compatible.e2e-spec.ts.
 */
const ORIGIN = 'https://chat.example.com';
const REQUEST_ID = /^req_[0-9a-f]{32}$/;

describe('the OpenAI-compatible edge', () => {
  const fake = new FakeProviderServer();
  const apps: AppProcess[] = [];
  let gateway: string;
  /** The same stack behind a gateway with no allowed origin (the default). */
  let closedGateway: string;
  let key: string;

  const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(`${gateway}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'prompt/edge/default', messages: [{ role: 'user', content: 'Hello there' }], ...body }),
      signal,
    });
  const preflight = (base: string, path: string, origin: string) =>
    fetch(`${base}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-stainless-os,x-stainless-retry-count',
      },
    });

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    apps.push(
      spawnApp('catalog', await freePort(), env),
      spawnApp('invocation', await freePort(), env),
      spawnApp('gateway', await freePort(), { ...env, OPENAI_CORS_ORIGINS: `https://other.example.com, ${ORIGIN}` }),
      spawnApp('gateway', await freePort(), env),
    );
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[2].baseUrl;
    closedGateway = apps[3].baseUrl;
    await loadCatalogWithFakeModels('2099.35.1', [fakeModel('oa-edge-chat')]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e openai edge']);
    key = created.api_key;
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-openai-edge-')), 'prompts.yaml');
    writeFileSync(
      file,
      'prompts:\n  - deployment: edge\n    variants:\n      - name: default\n        model: oa-edge-chat\n        messages:\n          - { role: system, content: "Answer briefly." }\n',
    );
    await cliJson(['apply', '-f', file, '--workspace', created.workspace_id]);
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
  });

  afterEach(() => fake.reset());

  describe('CORS', () => {
    it('answers a preflight from an allowed origin, echoing the requested headers (x-stainless-*)', async () => {
      const response = await preflight(gateway, '/openai/v1/chat/completions', ORIGIN);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(response.headers.get('access-control-allow-headers')).toBe(
        'authorization,content-type,x-stainless-os,x-stainless-retry-count',
      );
      expect(response.headers.get('access-control-allow-methods')).toBe('GET,POST');
      expect(response.headers.get('vary')).toMatch(/Origin/);
    });

    it('lets an allowed origin read the answer and its x-request-id, a refusal included', async () => {
      const response = await fetch(`${gateway}/openai/v1/models`, { headers: { origin: ORIGIN } });
      expect(response.status).toBe(401);
      expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(response.headers.get('access-control-expose-headers')).toMatch(/x-request-id/);
      expect(response.headers.get('x-request-id')).toMatch(REQUEST_ID);
      expect(await response.json()).toEqual({
        error: { message: expect.any(String), type: 'authentication_error', param: null, code: 'unauthorized' },
      });
    });

    it('allows no other origin, no origin at all by default, and never the native routes', async () => {
      const other = await preflight(gateway, '/openai/v1/chat/completions', 'https://evil.example.com');
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const closed = await preflight(closedGateway, '/openai/v1/chat/completions', ORIGIN);
      expect(closed.headers.get('access-control-allow-origin')).toBeNull();
      expect(closed.status).toBe(404);
      expect(((await closed.json()) as { error: { code: string } }).error.code).toBe('unsupported_endpoint');
      const native = await preflight(gateway, '/v1/prompt/invoke', ORIGIN);
      expect(native.headers.get('access-control-allow-origin')).toBeNull();
      expect(native.headers.get('x-request-id')).toBeNull();
    });
  });

  it('names the run in x-request-id, which the ledger finds with surface openai', async () => {
    const response = await chat({});
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id') ?? '';
    expect(requestId).toMatch(REQUEST_ID);
    expect(((await response.json()) as { id: string }).id).toBe(`chatcmpl-${requestId.slice(4)}`);
    await expectEventually(async () => {
      const lookup = await fetch(`${gateway}/v1/public/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } });
      expect(await lookup.json()).toMatchObject({ request_id: requestId, status: 'completed', surface: 'openai', message: 'Hello there' });
    });
  });

  it('cancels the run when a streaming client leaves, as the native routes do', async () => {
    fake.setModel('oa-edge-chat', { response: 'one two three four five six' });
    const gate = fake.gate('oa-edge-chat', 2);
    const controller = new AbortController();
    const response = await chat({ stream: true }, {}, controller.signal);
    const requestId = response.headers.get('x-request-id') ?? '';
    const chunks = readSse(response);
    expect(JSON.parse((await chunks.next()).value as string)).toMatchObject({ object: 'chat.completion.chunk' });
    const held = await gate.reached;
    controller.abort();
    await expectEventually(() => expect(fake.requests.find((record) => record.id === held.id)?.aborted).toBe(true));
    gate.release();
    await expectEventually(async () => {
      const lookup = await fetch(`${gateway}/v1/public/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } });
      expect(await lookup.json()).toMatchObject({ status: 'cancelled', surface: 'openai' });
    });
  });

  it('replays an idempotent repeat of a stream as the same chunks, naming the first run', async () => {
    const headers = { 'idempotency-key': `oa-edge-${Date.now()}` };
    const body = { stream: true, stream_options: { include_usage: true } };
    const first = await chat(body, headers);
    const firstId = first.headers.get('x-request-id');
    const firstChunks: string[] = [];
    for await (const data of readSse(first)) firstChunks.push(data);
    const repeat = await chat(body, headers);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.headers.get('x-request-id')).toBe(firstId);
    const repeatChunks: string[] = [];
    for await (const data of readSse(repeat)) repeatChunks.push(data);
    expect(repeatChunks.at(-1)).toBe('[DONE]');
    // The same chunks but for `created`, which is the repeat's.
    const withoutCreated = (chunks: string[]) =>
      chunks.map((data) => (data === '[DONE]' ? data : { ...(JSON.parse(data) as Record<string, unknown>), created: 0 }));
    expect(withoutCreated(repeatChunks)).toEqual(withoutCreated(firstChunks));
    expect(JSON.parse(firstChunks.at(-2) as string)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
  });
});
