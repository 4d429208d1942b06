import { QueueNames, type AppliedDeployment } from '@waggle/contracts';
import {
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  readSseEvents,
  type AppProcess,
  type SseEvent,
} from '@waggle/testing';
import { deliveryIdFor } from '@waggle/webhooks';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_REDIS_URL } from '../setup/test-env';

const DEFINITIONS = `
prompts:
  - deployment: once
    variants:
      - name: default
        model: fake-once-chat
        messages:
          - { role: user, content: "{{ question }}" }
workflows:
  - deployment: once-flow
    variants:
      - name: default
        inputs: { topic: { type: text, required: true } }
        output: "{{ brief.output }}"
        steps:
          - { id: brief, type: template, text: "Brief on {{ topic }}" }
`;

interface Workspace {
  id: string;
  key: string;
  prompt: AppliedDeployment;
}

type Answer = { status: number; body: Record<string, unknown>; replayed: string | null; remaining: string | null };

/**
 * `Idempotency-Key` (decisions, "Beyond the contract"): the first request runs, a repeat gets
 * its answer again without running or being metered, from any gateway replica and after a
 * restart; a repeat while the first runs is 409, another request under the key 422.
 */
describe('Idempotency-Key', () => {
  const fake = new FakeProviderServer();
  const apps: Record<'catalog' | 'invocation' | 'gatewayA' | 'gatewayB', AppProcess> = {} as never;
  const redis = new Redis(TEST_REDIS_URL);
  /** Callbacks queued with no dispatcher running: removed so no later spec's dispatcher sends them. */
  const queuedCallbacks: string[] = [];
  let first: Workspace;
  let other: Workspace;

  async function workspace(name: string): Promise<Workspace> {
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', name]);
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-idempotency-')), 'definitions.yaml');
    writeFileSync(file, DEFINITIONS);
    // A file with both lists prints both.
    const applied = await cliJson<{ prompts: AppliedDeployment[] }>(['apply', '-f', file, '--workspace', created.workspace_id]);
    const prompt = applied.prompts.find((deployment) => deployment.deployment === 'once');
    if (!prompt) throw new Error('the prompt deployment was not applied');
    return { id: created.workspace_id, key: created.api_key, prompt };
  }

  async function post(gateway: AppProcess, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
    const response = await fetch(`${gateway.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
      replayed: response.headers.get('idempotent-replayed'),
      remaining: response.headers.get('x-ratelimit-remaining'),
    };
  }

  const invoke = (gateway: AppProcess, who: Workspace, key: string, body: unknown) =>
    post(gateway, '/v1/prompt/invoke', body, { authorization: `Bearer ${who.key}`, 'idempotency-key': key });

  const providerCallsFor = (question: string) => fake.requests.filter((record) => JSON.stringify(record.body).includes(question)).length;

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key' };
    apps.catalog = spawnApp('catalog', await freePort(), env);
    apps.invocation = spawnApp('invocation', await freePort(), env);
    apps.gatewayA = spawnApp('gateway', await freePort(), { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    apps.gatewayB = spawnApp('gateway', await freePort(), { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    await Promise.all(Object.values(apps).map((app) => waitUntilLive(app)));
    await loadCatalogWithFakeModels('2099.7.1', [fakeModel('fake-once-chat', { reasoning: false })]);
    first = await workspace('e2e idempotency');
    other = await workspace('e2e idempotency other');
  });

  afterAll(async () => {
    const callbacks = new Queue(QueueNames.callbacks, { connection: redis });
    await Promise.all(queuedCallbacks.map((deliveryId) => callbacks.remove(deliveryId)));
    await callbacks.close();
    redis.disconnect();
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(Object.values(apps).map((app) => app.stop()));
    await fake.stop();
  });

  it('replays the first answer to a repeat, from another gateway and after a restart, without running or metering it again', async () => {
    await cliJson(['workspace', 'set-limits', first.id, '--rate-limit-per-day', '100']);
    const body = { deployment: 'once', variant: 'default', inputs: { question: 'replay me' }, metadata: { a: 1, b: 2 } };
    const original = await invoke(apps.gatewayA, first, 'order-1', body);
    expect(original).toMatchObject({ status: 200, replayed: null, remaining: '99' });
    expect(original.body.response).toBe('Echo: replay me');

    // The same body with its keys in another order, through the other replica.
    const reordered = { metadata: { b: 2, a: 1 }, inputs: { question: 'replay me' }, variant: 'default', deployment: 'once' };
    const repeat = await invoke(apps.gatewayB, first, 'order-1', reordered);
    expect(repeat).toEqual({ status: 200, body: original.body, replayed: 'true', remaining: null });

    // A restarted gateway still finds it (the record is in Redis, not in a replica's memory).
    expect(await apps.gatewayA.stop()).toBe(0);
    apps.gatewayA = spawnApp('gateway', apps.gatewayA.port, apps.gatewayA.env);
    await waitUntilLive(apps.gatewayA);
    expect(await invoke(apps.gatewayA, first, 'order-1', body)).toEqual({
      status: 200,
      body: original.body,
      replayed: 'true',
      remaining: null,
    });

    // One run, one meter count: the next new request is the second of the day.
    expect(providerCallsFor('replay me')).toBe(1);
    const next = await invoke(apps.gatewayB, first, 'order-2', { ...body, inputs: { question: 'a new one' } });
    expect(next).toMatchObject({ status: 200, replayed: null, remaining: '98' });
  });

  it('starts exactly one run for 20 identical requests at once; the others are told it is still running', async () => {
    const release = fake.hold('fake-once-chat');
    const body = { deployment: 'once', variant: 'default', inputs: { question: 'twenty at once' } };
    const answers = Array.from({ length: 20 }, (_, index) => invoke(index % 2 ? apps.gatewayA : apps.gatewayB, first, 'burst-1', body));
    // The one that runs is held at the provider, so the 19 others all answer while it is still running.
    const settled: Answer[] = [];
    const nineteen = new Promise<void>((resolve) => {
      for (const answer of answers)
        void answer.then((result) => {
          settled.push(result);
          if (settled.length === 19) resolve();
        });
    });
    await nineteen;
    await fake.waitForRequest((record) => JSON.stringify(record.body).includes('twenty at once'));
    const runningId = settled[0].body.request_id;
    expect(runningId).toMatch(/^req_[0-9a-f]{32}$/);
    for (const refusal of settled) {
      expect(refusal).toMatchObject({ status: 409, body: { error_code: 'idempotency_key_in_use', request_id: runningId } });
    }
    release();
    const all = await Promise.all(answers);
    const ran = all.filter((answer) => answer.status === 200);
    expect(ran).toHaveLength(1);
    expect(ran[0].body).toMatchObject({ request_id: runningId, response: 'Echo: twenty at once' });
    expect(providerCallsFor('twenty at once')).toBe(1);
    // Once it has finished, a repeat gets its answer.
    expect(await invoke(apps.gatewayA, first, 'burst-1', body)).toMatchObject({ status: 200, replayed: 'true', body: ran[0].body });
  });

  it('refuses the key with another request, keeps no refusal, and keeps each workspace apart', async () => {
    const body = { deployment: 'once', variant: 'default', inputs: { question: 'first use' } };
    expect((await invoke(apps.gatewayA, first, 'reuse-1', body)).status).toBe(200);
    const changed = await invoke(apps.gatewayB, first, 'reuse-1', { ...body, inputs: { question: 'second use' } });
    expect(changed).toMatchObject({ status: 422, body: { error_code: 'idempotency_key_reused' } });
    const otherRoute = await post(apps.gatewayA, '/v1/invoke', body, {
      authorization: `Bearer ${first.key}`,
      'idempotency-key': 'reuse-1',
    });
    expect(otherRoute).toMatchObject({ status: 422, body: { error_code: 'idempotency_key_reused' } });
    expect(providerCallsFor('second use')).toBe(0);

    // A request refused before its run (an unknown deployment) leaves the key free for the corrected one.
    const refused = await invoke(apps.gatewayA, first, 'fix-1', { ...body, deployment: 'no-such-deployment' });
    expect(refused).toMatchObject({ status: 404, replayed: null });
    const corrected = await invoke(apps.gatewayA, first, 'fix-1', { ...body, inputs: { question: 'corrected' } });
    expect(corrected).toMatchObject({ status: 200, replayed: null, body: { response: 'Echo: corrected' } });

    // Another workspace's identical request under the same key is its own.
    const theirs = await invoke(apps.gatewayB, other, 'reuse-1', body);
    expect(theirs).toMatchObject({ status: 200, replayed: null });
    expect(theirs.body.request_id).not.toBe(corrected.body.request_id);
    expect(providerCallsFor('first use')).toBe(2);
  });

  it('replays a stream: the same events with the same ids, after a 409 while it was still running', async () => {
    const release = fake.hold('fake-once-chat');
    const body = { deployment: 'once', variant: 'default', inputs: { question: 'stream once' }, streaming: true };
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${first.key}`, 'idempotency-key': 'stream-1' };
    const streamed = fetch(`${apps.gatewayA.baseUrl}/v1/prompt/invoke`, { method: 'POST', headers, body: JSON.stringify(body) });
    await fake.waitForRequest((record) => JSON.stringify(record.body).includes('stream once'));
    const whileRunning = await post(apps.gatewayB, '/v1/prompt/invoke', body, headers);
    expect(whileRunning).toMatchObject({ status: 409, body: { error_code: 'idempotency_key_in_use' } });
    release();

    const read = async (response: Response) => {
      const events: SseEvent[] = [];
      for await (const event of readSseEvents(response)) events.push(event);
      return events;
    };
    const original = await streamed;
    expect(original.headers.get('idempotent-replayed')).toBeNull();
    const live = await read(original);
    expect(live.at(-1)?.data).toBe('[DONE]');
    expect(live.length).toBeGreaterThan(2);

    const repeat = await fetch(`${apps.gatewayB.baseUrl}/v1/prompt/invoke`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await read(repeat)).toEqual(live);
    expect(providerCallsFor('stream once')).toBe(1);

    // Kept as long as the key: a day, not the hour of a background stream's.
    const requestId = (JSON.parse(live[0].data) as { request_id: string }).request_id;
    expect(await redis.pttl(`waggle:run-events:${requestId}`)).toBeGreaterThan(23 * 3600_000);
  });

  it('refuses a key that is not 1 to 255 visible ASCII characters', async () => {
    const body = { deployment: 'once', variant: 'default', inputs: { question: 'bad key' } };
    for (const key of ['x'.repeat(256), 'with space', 'tab\there']) {
      const answer = await invoke(apps.gatewayA, first, key, body);
      expect(answer).toMatchObject({ status: 422, body: { error_code: 'validation_error' } });
    }
    expect(providerCallsFor('bad key')).toBe(0);
  });

  it('replays a webhook trigger and an async workflow, keeping the answer sealed in Redis', async () => {
    const variantId = first.prompt.variants[0].variant_id;
    const triggerPath = `/v1/prompt/webhooks/${first.prompt.prompt_endpoint_id}/variants/${variantId}`;
    const triggerBody = { inputs: { question: 'triggered once' }, async: { callback_url: 'http://127.0.0.1:9/unused' } };
    const secret = { 'x-service-webhook-secret': first.prompt.webhook_secret, 'idempotency-key': 'hook-1' };
    const accepted = await post(apps.gatewayA, triggerPath, triggerBody, secret);
    expect(accepted).toMatchObject({ status: 202, replayed: null, body: { run_status: 'running' } });
    queuedCallbacks.push(deliveryIdFor(String(accepted.body.request_id)));
    expect(await post(apps.gatewayB, triggerPath, triggerBody, secret)).toEqual({ ...accepted, replayed: 'true' });

    const flowBody = {
      deployment: 'once-flow',
      variant: 'default',
      inputs: { topic: 'bees' },
      async: { enabled: true, callback_url: 'http://127.0.0.1:9/unused' },
    };
    const headers = { authorization: `Bearer ${first.key}`, 'idempotency-key': 'flow-1' };
    const started = await post(apps.gatewayA, '/v1/workflow/invoke', flowBody, headers);
    expect(started.status).toBe(200);
    expect(started.body.webhook_secret).toEqual(expect.any(String));
    queuedCallbacks.push(deliveryIdFor(String(started.body.request_id)));
    expect(await post(apps.gatewayB, '/v1/workflow/invoke', flowBody, headers)).toMatchObject({
      status: 200,
      replayed: 'true',
      body: started.body,
    });

    // The trigger ran once.
    await expectEventually(async () => {
      const lookup = await fetch(`${apps.gatewayA.baseUrl}/v1/public/requests/${String(accepted.body.request_id)}`, {
        headers: { authorization: `Bearer ${first.key}` },
      });
      expect(await lookup.json()).toMatchObject({ status: 'completed' });
    });
    expect(providerCallsFor('triggered once')).toBe(1);

    // Neither the keys nor the answers (the webhook secret among them) are readable in Redis.
    const keys = await redis.keys('waggle:idempotency:*');
    expect(keys.length).toBeGreaterThan(0);
    const stored = (await Promise.all(keys.map((key) => redis.get(key)))).join('\n');
    expect(stored).not.toContain(String(started.body.webhook_secret));
    expect(stored).not.toContain('flow-1');
    expect(stored).not.toContain('Echo: replay me');
  });
});
