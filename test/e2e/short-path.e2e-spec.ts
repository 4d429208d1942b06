import type { AppliedDeployment } from '@waggle/contracts';
import {
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PROMPTS = `
prompts:
  - deployment: helper
    variants:
      - name: default
        model: fake-chat
        messages:
          - { role: user, content: "{{ question }}" }
`;

/** What the short path logs (at debug) for each request it serves. */
const SERVED = 'served by the short path';
/** A small limit, so a 413 needs no large body. */
const MAX_JSON_BODY_BYTES = 4_096;

interface Sent {
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** An answer with what differs between any two requests (ids, times, durations) masked, every header kept. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Values that differ from request to request, whichever path served it. */
const VARYING: Array<[RegExp, string]> = [
  [/req_[0-9a-f]{32}/g, 'req_*'],
  [/err_[0-9a-f]{32}/g, 'err_*'],
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'uuid'],
  [/"(duration|created|created_at|completed_at|latency_ms)":\s*[0-9.]+/g, '"$1":0'],
  [/(chatcmpl|resp|msg)[-_][A-Za-z0-9]+/g, '$1-*'],
  // Express's ETag is the unmasked body's length and hash (a duration of 9 ms or 12 ms differs by a byte).
  [/^W\/"[0-9a-f]+-[A-Za-z0-9+/=]+"$/, 'W/"*"'],
];
const masked = (text: string) => VARYING.reduce((value, [pattern, mask]) => value.replace(pattern, mask), text);

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;

async function answerOf(base: string, sent: Sent): Promise<Answer> {
  const response = await fetch(`${base}${sent.path}`, { method: sent.method ?? 'POST', headers: sent.headers, body: sent.body });
  const body = await response.text();
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    // The clock's, and the body's length (its ids and durations are masked, and compared, in the body).
    if (name === 'date' || name === 'content-length' || name === 'x-ratelimit-reset' || name === 'x-ratelimit-reset-requests') continue;
    if (name === 'traceparent') {
      expect(value).toMatch(TRACEPARENT);
      headers[name] = 'traceparent';
      continue;
    }
    headers[name] = masked(value);
  }
  return { status: response.status, headers, body: masked(body) };
}

/**
 * The short path (GATEWAY_SHORT_PATH=on, the default) answers exactly as Express does (off):
 * two gateways in front of the same services, each with a workspace of its own on the same plan
 * so their meters move in step, are sent the same requests in the same order, and every status,
 * header and body must match once ids and times are masked. The gateway with the short path on
 * must have served the run-starting ones itself (its debug line), the other none.
 */
describe('the gateway short path for run-starting routes', () => {
  const fake = new FakeProviderServer({ reasoning: 'Thinking it over.' });
  const apps: AppProcess[] = [];
  let on: AppProcess;
  let off: AppProcess;
  const keys = new Map<AppProcess, string>();

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    const gatewayEnv = {
      ...env,
      LOG_LEVEL: 'debug',
      MAX_JSON_BODY_BYTES: String(MAX_JSON_BODY_BYTES),
      OPENAI_CORS_ORIGINS: 'https://chat.example.com',
    };
    on = spawnApp('gateway', await freePort(), gatewayEnv);
    off = spawnApp('gateway', await freePort(), { ...gatewayEnv, GATEWAY_SHORT_PATH: 'off' });
    apps.push(spawnApp('catalog', await freePort(), env), spawnApp('invocation', await freePort(), env), on, off);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    await loadCatalogWithFakeModels('2099.39.3', [fakeModel('fake-chat')]);
    const prompts = join(mkdtempSync(join(tmpdir(), 'waggle-short-path-')), 'prompts.yaml');
    writeFileSync(prompts, PROMPTS);
    for (const gateway of [on, off]) {
      const created = await cliJson<{ workspace_id: string; api_key: string }>([
        'workspace',
        'create',
        '--name',
        `e2e short path ${gateway === on ? 'on' : 'off'}`,
        '--plan',
        'pro',
      ]);
      await cliJson<AppliedDeployment[]>(['apply', '-f', prompts, '--workspace', created.workspace_id]);
      keys.set(gateway, created.api_key);
    }
  });

  afterAll(async () => {
    try {
      await cliJson(['catalog', 'load', '--force']);
    } finally {
      await Promise.all(apps.map((app) => app.stop()));
      await fake.stop();
    }
  });

  const servedBy = (gateway: AppProcess) => gateway.output().split(SERVED).length - 1;
  const json = (key: string | undefined, extra: Record<string, string> = {}) => ({
    'content-type': 'application/json',
    ...(key !== undefined && { authorization: `Bearer ${key}` }),
    ...extra,
  });
  const invokeBody = JSON.stringify({ deployment: 'helper', variant: 'default', inputs: { question: 'Is it open?' } });
  const chatBody = JSON.stringify({ model: 'prompt/helper/default', messages: [{ role: 'user', content: 'Hi' }] });

  /**
   * Sends `requests(key)` to both gateways, in turn, and expects the same answers, and `served` of
   * them served by the short path (its debug lines reach the output after the answers: awaited).
   */
  async function compare(name: string, served: number, requests: (key: string) => Sent[]): Promise<void> {
    const before = servedBy(on);
    const answers = new Map<AppProcess, Answer[]>();
    for (const gateway of [on, off]) {
      const list: Answer[] = [];
      for (const sent of requests(keys.get(gateway) ?? '')) list.push(await answerOf(gateway.baseUrl, sent));
      answers.set(gateway, list);
    }
    expect({ name, answers: answers.get(on) }).toEqual({ name, answers: answers.get(off) });
    await expectEventually(() => expect(servedBy(on) - before).toBe(served));
    expect(servedBy(off)).toBe(0);
  }

  it('is on by default and lists its routes at boot, and off when told', () => {
    expect(on.output()).toContain('"routes":["POST /v1/prompt/invoke","POST /v1/invoke"');
    expect(off.output()).not.toContain('"routes":');
  });

  it.each([
    ['a prompt invoke', '/v1/prompt/invoke', invokeBody],
    ['a prompt invoke on the short route', '/v1/invoke', invokeBody],
    ['a streamed prompt invoke', '/v1/prompt/invoke', JSON.stringify({ deployment: 'helper', variant: 'default', streaming: true })],
    ['a background prompt invoke', '/v1/prompt/invoke', JSON.stringify({ deployment: 'helper', variant: 'default', background: true })],
    ['a missing field', '/v1/prompt/invoke', JSON.stringify({ variant: 'default' })],
    ['an unknown field', '/v1/prompt/invoke', JSON.stringify({ deployment: 'helper', variant: 'default', colour: 'red' })],
    ['an unknown deployment', '/v1/prompt/invoke', JSON.stringify({ deployment: 'nope', variant: 'default' })],
    ['malformed JSON', '/v1/prompt/invoke', '{"deployment":'],
    ['a body past the limit', '/v1/prompt/invoke', JSON.stringify({ deployment: 'helper', variant: 'x'.repeat(MAX_JSON_BODY_BYTES) })],
    ['a NUL character', '/v1/prompt/invoke', JSON.stringify({ deployment: 'help\u0000er', variant: 'default' })],
    ['a workflow invoke of nothing', '/v1/workflow/invoke', JSON.stringify({ workflow: 'nope' })],
    ['an agent invoke of nothing', '/v1/agent/invoke', JSON.stringify({ agent_id: 'nope' })],
    ['an OpenAI chat completion', '/openai/v1/chat/completions', chatBody],
    ['an OpenAI chat completion of an unknown model', '/openai/v1/chat/completions', JSON.stringify({ model: 'nope', messages: [] })],
    ['an OpenAI response', '/openai/v1/responses', JSON.stringify({ model: 'prompt/helper/default', input: 'Hi' })],
  ])('answers %s as Express does, and serves it', async (name, path, body) => {
    await compare(name, 1, (key) => [{ path, headers: json(key), body }]);
  });

  it.each([
    ['without a key', undefined],
    ['with a wrong key', 'wg_live_not_a_key'],
  ])('answers an invoke %s as Express does, and serves it', async (name, key) => {
    await compare(name, 1, () => [{ path: '/v1/prompt/invoke', headers: json(key), body: invokeBody }]);
  });

  it('answers an idempotent repeat, a reuse and a bad key as Express does, and serves them', async () => {
    const requests = (key: string): Sent[] => {
      const idempotent = json(key, { 'idempotency-key': `short-path-${key.slice(-12)}` });
      return [
        { path: '/v1/prompt/invoke', headers: idempotent, body: invokeBody },
        { path: '/v1/prompt/invoke', headers: idempotent, body: invokeBody },
        { path: '/v1/prompt/invoke', headers: idempotent, body: JSON.stringify({ deployment: 'helper', variant: 'other' }) },
        { path: '/v1/prompt/invoke', headers: json(key, { 'idempotency-key': 'spaces are not allowed' }), body: invokeBody },
      ];
    };
    await compare('idempotency', 4, requests);
  });

  it('answers an OpenAI request from an allowed origin with the same CORS headers, and serves it', async () => {
    const requests = (key: string): Sent[] => [
      { path: '/openai/v1/chat/completions', headers: json(key, { origin: 'https://chat.example.com' }), body: chatBody },
    ];
    await compare('cors', 1, requests);
  });

  it.each([
    [
      'a preflight',
      {
        path: '/openai/v1/chat/completions',
        method: 'OPTIONS',
        headers: { origin: 'https://chat.example.com', 'access-control-request-method': 'POST' },
      },
    ],
    ['a query string', { path: '/v1/prompt/invoke?x=1', body: invokeBody }],
    ['a malformed query string', { path: '/v1/prompt/invoke?%E0%A4%A=1', body: invokeBody }],
    ['a trailing slash', { path: '/v1/prompt/invoke/', body: invokeBody }],
    ['another case', { path: '/V1/Prompt/Invoke', body: invokeBody }],
    ['a GET', { path: '/v1/prompt/invoke', method: 'GET' }],
    ['a form body', { path: '/v1/prompt/invoke', body: 'deployment=helper', type: 'application/x-www-form-urlencoded' }],
    ['a compressed body', { path: '/v1/prompt/invoke', body: invokeBody, encoding: 'gzip' }],
  ])('leaves %s to Express, with the same answer', async (name, request) => {
    const { type, encoding, ...sent } = request as Sent & { type?: string; encoding?: string };
    const requests = (key: string): Sent[] => [
      {
        ...sent,
        headers: {
          ...(sent.body !== undefined && { 'content-type': type ?? 'application/json' }),
          ...(encoding !== undefined && { 'content-encoding': encoding }),
          authorization: `Bearer ${key}`,
          ...sent.headers,
        },
      },
    ];
    await compare(name, 0, requests);
  });
});
