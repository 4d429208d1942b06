import type { AppliedDeployment, DeliverySummary, WebhookSecretView } from '@waggle/contracts';
import {
  CallbackReceiver,
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  OtlpReceiver,
  spawnApp,
  waitUntilLive,
  type AppProcess,
  type ReceivedCallback,
} from '@waggle/testing';
import { QueueNames, type CallbackDeliveryJob, type PromptTriggerJob } from '@waggle/contracts';
import { deliveryIdFor } from '@waggle/webhooks';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { createHmac, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../setup/test-env';

const PROMPTS = `
prompts:
  - deployment: hooked
    variants:
      - name: default
        model: fake-hook-chat
        messages:
          - { role: system, content: "You answer for {{ company }}." }
          - { role: user, content: "{{ question }}" }
      - name: broken
        model: fake-hook-broken
        messages:
          - { role: user, content: "{{ question }}" }
      - name: slow
        model: fake-hook-slow
        messages:
          - { role: user, content: "{{ question }}" }
      - name: stuck
        model: fake-hook-stuck
        messages:
          - { role: user, content: "{{ question }}" }
  - deployment: rotating
    variants:
      - name: default
        model: fake-hook-chat
        messages:
          - { role: user, content: "{{ question }}" }
`;

/** Both signatures of a callback, verified the way a receiver would. */
function expectSignedWith(callback: ReceivedCallback, secret: string): void {
  const expected = `sha256=${createHmac('sha256', secret).update(callback.body).digest('hex')}`;
  expect(String(callback.headers['x-service-signature']).split(', ')).toContain(expected);
  const verified = new Webhook(secret).verify(callback.body, {
    'webhook-id': String(callback.headers['webhook-id']),
    'webhook-timestamp': String(callback.headers['webhook-timestamp']),
    'webhook-signature': String(callback.headers['webhook-signature']),
  });
  expect(verified).toEqual(JSON.parse(callback.body));
}

/**
 * Webhook triggers through the whole stack: gateway, invocation, the callback-dispatcher
 * and a real HTTP receiver on loopback, against the fake provider.
 */
describe('prompt webhook triggers and signed callbacks', () => {
  const fake = new FakeProviderServer({ latencyMs: 5 });
  const receiver = new CallbackReceiver();
  const traces = new OtlpReceiver();
  const apps: Record<'catalog' | 'invocation' | 'gateway' | 'dispatcher', AppProcess> = {} as never;
  let gateway: string;
  let receiverUrl: string;
  let key: string;
  let workspaceId: string;
  let hooked: AppliedDeployment;
  let rotating: AppliedDeployment;
  // The stack's BullMQ queues (default prefix, test Redis): tests wait on their jobs, never on a clock.
  let queueConnection: Redis;
  let callbacks: Queue<CallbackDeliveryJob>;
  let promptRuns: Queue<PromptTriggerJob>;

  const serviceEnv = (fakeUrl: string) => ({ LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key' });
  const dispatcherEnv = {
    LOG_LEVEL: 'info',
    CALLBACK_URL_ALLOWLIST: '127.0.0.1',
    CALLBACK_RETRY_SCHEDULE: '300ms,300ms,300ms',
    CALLBACK_RETRY_JITTER: '0',
    // Short locks: a delivery of a killed dispatcher is sent again within seconds.
    CALLBACK_LOCK_MS: '2000',
  };

  const variantId = (deployment: AppliedDeployment, name: string) => {
    const variant = deployment.variants.find((candidate) => candidate.name === name);
    if (!variant) throw new Error(`no variant ${name} in ${deployment.deployment}`);
    return variant.variant_id;
  };
  const deploymentNamed = (applied: AppliedDeployment[], name: string) => {
    const deployment = applied.find((candidate) => candidate.deployment === name);
    if (!deployment) throw new Error(`apply did not return ${name}`);
    return deployment;
  };
  const triggerUrl = (deployment: AppliedDeployment, variant = 'default') =>
    `${gateway}/v1/prompt/webhooks/${deployment.prompt_endpoint_id}/variants/${variantId(deployment, variant)}`;
  const trigger = (url: string, body: unknown, secret?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(secret === undefined ? {} : { 'x-service-webhook-secret': secret }) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const validBody = (path: string, extra: Record<string, unknown> = {}) => ({
    inputs: { company: 'Acme', question: 'Is it open?' },
    metadata: { order: 'A-1' },
    async: { callback_url: `${receiverUrl}${path}` },
    ...extra,
  });
  /** Waits until exactly `count` callbacks arrived on `path`, and answers them. */
  const callbacksOn = (path: string, count = 1, timeoutMs = 10_000) =>
    expectEventually(
      () => {
        const arrived = receiver.on(path);
        expect(arrived).toHaveLength(count);
        return arrived;
      },
      { timeoutMs },
    );
  const privateGet = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  const deliveryOf = async (requestId: string) =>
    (await privateGet<{ deliveries: DeliverySummary[] }>(`/v1/private/deliveries?request_id=${requestId}`)).deliveries;
  /** Waits until a job has nothing left to do: completed, or failed for good (the dead-letter set). */
  const jobFinished = (queue: Queue, jobId: string, timeoutMs = 10_000) =>
    expectEventually(
      async () => {
        const state = await queue.getJobState(jobId);
        expect(['completed', 'failed']).toContain(state);
        return state;
      },
      { timeoutMs },
    );
  const startDispatcher = async () => {
    apps.dispatcher = spawnApp('callback-dispatcher', await freePort(), dispatcherEnv);
    await waitUntilLive(apps.dispatcher);
  };

  beforeAll(async () => {
    queueConnection = new Redis(TEST_REDIS_URL);
    callbacks = new Queue<CallbackDeliveryJob>(QueueNames.callbacks, { connection: queueConnection });
    promptRuns = new Queue<PromptTriggerJob>(QueueNames.promptRuns, { connection: queueConnection });
    const fakeUrl = await fake.start();
    fake.setModel('fake-hook-broken', { error: { status: 500, message: 'upstream exploded' } });
    // Held until the test lets it go (or the run's time-out ends it).
    fake.setModel('fake-hook-slow', { latencyMs: 60_000 });
    fake.setModel('fake-hook-stuck', { latencyMs: 60_000 });
    receiverUrl = await receiver.start();
    const otlp = await traces.start();
    const env = serviceEnv(fakeUrl);
    apps.catalog = spawnApp('catalog', await freePort(), env);
    // Short locks: a run of a killed invocation goes back to the queue within seconds.
    apps.invocation = spawnApp('invocation', await freePort(), {
      ...env,
      PROMPT_TRIGGER_LOCK_MS: '2000',
      PROMPT_TRIGGER_TIMEOUT_MS: '3000',
    });
    apps.gateway = spawnApp('gateway', await freePort(), {
      ...env,
      LOG_LEVEL: 'info',
      CALLBACK_URL_ALLOWLIST: '127.0.0.1',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    apps.dispatcher = spawnApp('callback-dispatcher', await freePort(), dispatcherEnv);
    await Promise.all(Object.values(apps).map((app) => waitUntilLive(app)));
    gateway = apps.gateway.baseUrl;

    await loadCatalogWithFakeModels('2099.5.1', [
      fakeModel('fake-hook-chat', { reasoning: false }),
      fakeModel('fake-hook-broken', { reasoning: false }),
      fakeModel('fake-hook-slow', { reasoning: false }),
      fakeModel('fake-hook-stuck', { reasoning: false }),
    ]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e webhooks']);
    key = created.api_key;
    workspaceId = created.workspace_id;
    const prompts = join(mkdtempSync(join(tmpdir(), 'waggle-hooks-')), 'prompts.yaml');
    writeFileSync(prompts, PROMPTS);
    const applied = await cliJson<AppliedDeployment[]>(['apply', '-f', prompts, '--workspace', workspaceId]);
    hooked = deploymentNamed(applied, 'hooked');
    rotating = deploymentNamed(applied, 'rotating');
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(Object.values(apps).map((app) => app.stop()));
    await Promise.all([fake.stop(), receiver.stop(), traces.stop()]);
    await Promise.all([callbacks?.close(), promptRuns?.close()]);
    queueConnection?.disconnect();
  });

  it('gives each deployment a whsec_ secret, shown by apply and by the private route', async () => {
    expect(hooked.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const shown = await privateGet<{ webhook_secret: WebhookSecretView }>('/v1/private/prompts/hooked/webhook_secret');
    expect(shown.webhook_secret).toEqual({
      deployment: 'hooked',
      prompt_endpoint_id: hooked.prompt_endpoint_id,
      webhook_secret: hooked.webhook_secret,
      previous_secret_expires_at: null,
    });
  });

  it('accepts a trigger with the secret header: 202, then one signed prompt.completed callback', async () => {
    const response = await trigger(triggerUrl(hooked), validBody('/header'), hooked.webhook_secret);
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as { request_id: string; run_status: string };
    expect(Object.keys(accepted).sort()).toEqual(['request_id', 'run_status']);
    expect(accepted).toEqual({ request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/), run_status: 'running' });

    const [callback] = await callbacksOn('/header');
    expect(JSON.parse(callback.body)).toEqual({
      event_type: 'prompt.completed',
      request_id: accepted.request_id,
      data: {
        response: 'Echo: Is it open?',
        model: 'fake-hook-chat',
        usage: expect.objectContaining({ total_tokens: expect.any(Number) }),
      },
    });
    expect(callback.headers['webhook-id']).toBe(`msg_${accepted.request_id.slice(4)}`);
    expectSignedWith(callback, hooked.webhook_secret);
    // The run is in the ledger like any other, with the trigger's metadata.
    const lookup = await fetch(`${gateway}/v1/public/requests/${accepted.request_id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(await lookup.json()).toMatchObject({ request_id: accepted.request_id, status: 'completed', metadata: { order: 'A-1' } });
    // The delivery log has the one successful attempt.
    const [delivery] = await expectEventually(async () => {
      const deliveries = await deliveryOf(accepted.request_id);
      expect(deliveries[0]?.status).toBe('succeeded');
      return deliveries;
    });
    expect(delivery.attempts).toEqual([
      { attempt: 1, attempted_at: expect.any(String), status_code: 200, latency_ms: expect.any(Number), error: null },
    ]);
  });

  it("carries the trigger's trace to its callback (traceparent) and its ledger record (trace_id)", async () => {
    const response = await trigger(triggerUrl(hooked), validBody('/traced'), hooked.webhook_secret);
    expect(response.status).toBe(202);
    const { request_id: requestId } = (await response.json()) as { request_id: string };
    const [, traceId] = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(response.headers.get('traceparent') ?? '') ?? [];
    expect(traceId).toBeDefined();

    // Through the run's queue job (invocation) and the callback's (the dispatcher), neither of which exports spans.
    const [callback] = await callbacksOn('/traced');
    expect(callback.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));
    // The signatures do not cover it: a receiver verifies the callback as before.
    expectSignedWith(callback, hooked.webhook_secret);
    const lookup = await fetch(`${gateway}/v1/public/requests/${requestId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(await lookup.json()).toMatchObject({ request_id: requestId, status: 'completed', trace_id: traceId });
  });

  it('accepts ?secret= when the caller cannot set headers, and never logs or traces it', async () => {
    const response = await trigger(`${triggerUrl(hooked)}?secret=${encodeURIComponent(hooked.webhook_secret)}`, validBody('/query'));
    expect(response.status).toBe(202);
    const { request_id } = (await response.json()) as { request_id: string };
    const [callback] = await callbacksOn('/query');
    expect(JSON.parse(callback.body)).toMatchObject({ event_type: 'prompt.completed', request_id });
    expectSignedWith(callback, hooked.webhook_secret);

    const secretForms = [hooked.webhook_secret, encodeURIComponent(hooked.webhook_secret), hooked.webhook_secret.slice(6)];
    // The gateway logged the request (LOG_LEVEL=info) and exported its spans, without the secret.
    await expectEventually(() => expect(apps.gateway.output()).toContain(request_id));
    await expectEventually(() => expect(traces.exports.some((body) => body.includes('/v1/prompt/webhooks/'))).toBe(true), {
      timeoutMs: 10_000,
    });
    for (const form of secretForms) {
      expect(apps.gateway.output()).not.toContain(form);
      expect(apps.dispatcher.output()).not.toContain(form);
      expect(traces.exports.join('\n')).not.toContain(form);
    }
  });

  it('delivers prompt.failed with the error when the provider fails', async () => {
    const response = await trigger(triggerUrl(hooked, 'broken'), validBody('/failed'), hooked.webhook_secret);
    expect(response.status).toBe(202);
    const { request_id } = (await response.json()) as { request_id: string };
    const [callback] = await callbacksOn('/failed');
    const body = JSON.parse(callback.body) as { event_type: string; request_id: string; data: { error: string; error_code: string } };
    expect(body).toEqual({
      event_type: 'prompt.failed',
      request_id,
      data: { error: expect.stringContaining('Fake Provider'), error_code: 'provider_error' },
    });
    expect(callback.body).not.toContain('fake-key');
    expectSignedWith(callback, hooked.webhook_secret);
  });

  it('fails a triggered run whose provider does not answer within PROMPT_TRIGGER_TIMEOUT_MS', async () => {
    const response = await trigger(triggerUrl(hooked, 'stuck'), validBody('/stuck'), hooked.webhook_secret);
    const { request_id } = (await response.json()) as { request_id: string };
    const [callback] = await callbacksOn('/stuck', 1, 10_000);
    expect(JSON.parse(callback.body)).toEqual({
      event_type: 'prompt.failed',
      request_id,
      data: { error: expect.stringContaining('Fake Provider'), error_code: 'provider_error' },
    });
  });

  it('retries a failing receiver with the same webhook-id and records every attempt', async () => {
    receiver.script('/flaky', [{ status: 500 }, { status: 503 }]);
    const response = await trigger(triggerUrl(hooked), validBody('/flaky'), hooked.webhook_secret);
    const { request_id } = (await response.json()) as { request_id: string };
    const arrived = await callbacksOn('/flaky', 3);
    expect(new Set(arrived.map((callback) => callback.headers['webhook-id'])).size).toBe(1);
    for (const callback of arrived) expectSignedWith(callback, hooked.webhook_secret);
    const [delivery] = await expectEventually(async () => {
      const deliveries = await deliveryOf(request_id);
      expect(deliveries[0]?.status).toBe('succeeded');
      return deliveries;
    });
    expect(delivery.attempts.map((attempt) => [attempt.attempt, attempt.status_code])).toEqual([
      [1, 500],
      [2, 503],
      [3, 200],
    ]);
  });

  it('stops retrying at 410 Gone', async () => {
    receiver.script('/gone', [{ status: 410 }]);
    const response = await trigger(triggerUrl(hooked), validBody('/gone'), hooked.webhook_secret);
    const { request_id } = (await response.json()) as { request_id: string };
    const [delivery] = await expectEventually(async () => {
      const deliveries = await deliveryOf(request_id);
      expect(deliveries[0]?.status).toBe('gone');
      return deliveries;
    });
    expect(delivery.attempts.map((attempt) => attempt.status_code)).toEqual([410]);
    // Its job ended in the dead-letter set, so no attempt is left to make: nothing more arrives.
    expect(await jobFinished(callbacks, delivery.delivery_id)).toBe('failed');
    expect(receiver.on('/gone')).toHaveLength(1);
  });

  it('redelivers a delivery on request, with the same webhook-id', async () => {
    const response = await trigger(triggerUrl(hooked), validBody('/again'), hooked.webhook_secret);
    const { request_id } = (await response.json()) as { request_id: string };
    const [delivery] = await expectEventually(async () => {
      const deliveries = await deliveryOf(request_id);
      expect(deliveries[0]?.status).toBe('succeeded');
      return deliveries;
    });
    const redelivered = await fetch(`${gateway}/v1/private/deliveries/${delivery.delivery_id}/redeliver`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(redelivered.status).toBe(202);
    const arrived = await callbacksOn('/again', 2);
    expect(arrived[1].headers['webhook-id']).toBe(arrived[0].headers['webhook-id']);
    expect(arrived[1].body).toBe(arrived[0].body);
  });

  it('refuses a callback host name that resolves to loopback, at connect time', async () => {
    // https and a host name pass the edge's checks; the dispatcher's address check refuses it.
    const port = new URL(receiverUrl).port;
    const body = { ...validBody('/never'), async: { callback_url: `https://localhost:${port}/never` } };
    const response = await trigger(triggerUrl(hooked), body, hooked.webhook_secret);
    expect(response.status).toBe(202);
    const { request_id } = (await response.json()) as { request_id: string };
    const [delivery] = await expectEventually(async () => {
      const deliveries = await deliveryOf(request_id);
      expect(deliveries[0]?.status).toBe('refused');
      return deliveries;
    });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: expect.stringContaining('loopback') });
    expect(receiver.on('/never')).toHaveLength(0);
  });

  it.each([
    ['10.0.0.1', 'https://10.0.0.1/hook'],
    ['169.254.169.254', 'https://169.254.169.254/latest/meta-data'],
    ['[::1]', 'https://[::1]/hook'],
    ['[::ffff:127.0.0.1]', 'https://[::ffff:127.0.0.1]/hook'],
    ['plain http to a public host', 'http://example.com/hook'],
    ['something that is not a URL', 'not a url'],
  ])('refuses a callback URL to %s with 422 validation_error', async (_, callbackUrl) => {
    const response = await trigger(triggerUrl(hooked), { ...validBody('/x'), async: { callback_url: callbackUrl } }, hooked.webhook_secret);
    expect(response.status).toBe(422);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      error_code: 'validation_error',
      error: body.message,
      details: [{ field: 'async.callback_url', messages: [expect.any(String)] }],
    });
  });

  it.each([
    ['no secret', undefined, 401, 'unauthorized'],
    ['a wrong secret', 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 401, 'unauthorized'],
    ["another deployment's secret", 'rotating', 401, 'unauthorized'],
  ])('refuses a trigger with %s', async (_, secret, status, code) => {
    const presented = secret === 'rotating' ? rotating.webhook_secret : secret;
    const response = await trigger(triggerUrl(hooked), validBody('/refused'), presented);
    expect(response.status).toBe(status);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error_code: code, error: body.message });
  });

  it('answers 404 resource_not_found to an unknown deployment or variant', async () => {
    const unknownDeployment = await trigger(
      `${gateway}/v1/prompt/webhooks/00000000-0000-4000-8000-000000000000/variants/${variantId(hooked, 'default')}`,
      validBody('/x'),
      hooked.webhook_secret,
    );
    expect(unknownDeployment.status).toBe(404);
    expect(await unknownDeployment.json()).toMatchObject({ error_code: 'resource_not_found' });
    const unknownVariant = await trigger(
      `${gateway}/v1/prompt/webhooks/${hooked.prompt_endpoint_id}/variants/00000000-0000-4000-8000-000000000000`,
      validBody('/x'),
      hooked.webhook_secret,
    );
    expect(unknownVariant.status).toBe(404);
    expect(await unknownVariant.json()).toMatchObject({ error_code: 'resource_not_found' });
  });

  it.each([
    [
      'a missing variable',
      { inputs: { company: 'Acme' }, async: { callback_url: 'http://127.0.0.1:1/x' } },
      422,
      'missing_required_field',
      'inputs.question',
    ],
    ['no inputs at all', { async: { callback_url: 'http://127.0.0.1:1/x' } }, 422, 'missing_required_field', 'inputs.company'],
    ['a missing callback URL', { inputs: { company: 'A', question: 'Q' } }, 422, 'missing_required_field', 'async.callback_url'],
    [
      'an async without callback_url',
      { inputs: { company: 'A', question: 'Q' }, async: {} },
      422,
      'missing_required_field',
      'async.callback_url',
    ],
    [
      'nested metadata',
      { inputs: { company: 'A', question: 'Q' }, metadata: { a: { b: 1 } }, async: { callback_url: 'http://127.0.0.1:1/x' } },
      422,
      'validation_error',
      'metadata',
    ],
    [
      'inputs that are not an object',
      { inputs: 'hello', async: { callback_url: 'http://127.0.0.1:1/x' } },
      422,
      'validation_error',
      'inputs',
    ],
  ])('refuses %s with the exact status and code', async (_, body, status, code, field) => {
    const response = await trigger(triggerUrl(hooked), body, hooked.webhook_secret);
    expect(response.status).toBe(status);
    const answer = (await response.json()) as { error_code: string; details: Array<{ field: string }> };
    expect(answer.error_code).toBe(code);
    expect(answer.details.map((detail) => detail.field)).toContain(field);
  });

  it('names every missing field at once', async () => {
    const response = await trigger(triggerUrl(hooked), { inputs: { company: 'A' } }, hooked.webhook_secret);
    expect(response.status).toBe(422);
    const answer = (await response.json()) as { error_code: string; details: Array<{ field: string }> };
    expect(answer.error_code).toBe('missing_required_field');
    expect(answer.details.map((detail) => detail.field)).toEqual(['inputs.question', 'async.callback_url']);
  });

  it('accepts empty-string and null variable values, and extra keys', async () => {
    const response = await trigger(
      triggerUrl(hooked),
      { inputs: { company: '', question: null, extra: 1 }, async: { callback_url: `${receiverUrl}/empty` } },
      hooked.webhook_secret,
    );
    expect(response.status).toBe(202);
    await expectEventually(() => expect(receiver.on('/empty')).toHaveLength(1));
  });

  it('answers 400 invalid_request to a body that is not JSON', async () => {
    const response = await trigger(triggerUrl(hooked), '{"inputs":', hooked.webhook_secret);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error_code: 'invalid_request' });
  });

  it('rotates a secret: both work during the overlap, callbacks carry both signatures, then only the new one', async () => {
    const old = rotating.webhook_secret;
    const rotateResponse = await fetch(`${gateway}/v1/private/prompts/rotating/webhook_secret/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ overlap_seconds: 3600 }),
    });
    expect(rotateResponse.status).toBe(200);
    const { webhook_secret: rotated } = (await rotateResponse.json()) as { webhook_secret: WebhookSecretView };
    expect(rotated.webhook_secret).not.toBe(old);
    expect(Date.parse(rotated.previous_secret_expires_at ?? '')).toBeGreaterThan(Date.now() + 3500_000);

    for (const [path, secret] of [
      ['/rotated-old', old],
      ['/rotated-new', rotated.webhook_secret],
    ] as const) {
      const response = await trigger(
        triggerUrl(rotating),
        { inputs: { question: 'q' }, async: { callback_url: `${receiverUrl}${path}` } },
        secret,
      );
      expect(response.status).toBe(202);
      const [callback] = await callbacksOn(path);
      expectSignedWith(callback, old);
      expectSignedWith(callback, rotated.webhook_secret);
    }

    // Without an overlap the old secret stops working at once (the CLI does the same as the route).
    const again = await cliJson<WebhookSecretView>(['webhook-secret', 'rotate', workspaceId, 'rotating', '--overlap', '0', '--yes']);
    expect(again.previous_secret_expires_at).toBeNull();
    expect(
      (
        await trigger(
          triggerUrl(rotating),
          { inputs: { question: 'q' }, async: { callback_url: `${receiverUrl}/x` } },
          rotated.webhook_secret,
        )
      ).status,
    ).toBe(401);
    // The dispatcher reads the secrets in force when it sends: the first callback after the
    // rotation is signed with the new secret alone.
    const response = await trigger(
      triggerUrl(rotating),
      { inputs: { question: 'q' }, async: { callback_url: `${receiverUrl}/rotated-final` } },
      again.webhook_secret,
    );
    expect(response.status).toBe(202);
    const [callback] = await callbacksOn('/rotated-final');
    expectSignedWith(callback, again.webhook_secret);
    expect(String(callback.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(String(callback.headers['x-service-signature']).split(', ')).toHaveLength(1);
  });

  it('re-runs a job whose result is already recorded without calling the model again, and delivers once', async () => {
    // What a worker crash after the ledger write leaves behind: a completed record and its job still queued.
    const requestId = `req_${randomBytes(16).toString('hex')}`;
    const db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO invocation.requests (id, workspace_id, request_type, requestable_type, requestable_id, model, status, metadata, generated_at, started_at, ended_at, duration_ms, usage, data)
         VALUES ($1, $2, 'prompt', 'prompt_deployment', $3, 'fake-hook-chat', 'completed', '{}', now(), now(), now(), 5, $4, $5)`,
        [
          requestId,
          workspaceId,
          hooked.prompt_endpoint_id,
          {
            prompt_tokens: { total_tokens: 1, cached_tokens: 0 },
            completion_tokens: { total_tokens: 2, reasoning_tokens: 0 },
            total_tokens: 3,
          },
          { response: 'recorded before the crash' },
        ],
      );
    } finally {
      await db.end();
    }
    const job: PromptTriggerJob = {
      request_id: requestId,
      workspace_id: workspaceId,
      prompt_endpoint_id: hooked.prompt_endpoint_id,
      variant_id: variantId(hooked, 'default'),
      version_id: '00000000-0000-4000-8000-000000000000',
      inputs: { company: 'A', question: 'Q' },
      metadata: {},
      user: null,
      callback_url: `${receiverUrl}/recorded`,
      accepted_at: new Date().toISOString(),
    };
    const modelCalls = fake.requests.length;
    await promptRuns.add('run', job, { jobId: requestId });
    // The same job id again (a producer retrying) is one job.
    await promptRuns.add('run', job, { jobId: requestId });
    const [callback] = await callbacksOn('/recorded');
    expect(JSON.parse(callback.body)).toMatchObject({
      event_type: 'prompt.completed',
      request_id: requestId,
      data: { response: 'recorded before the crash', model: 'fake-hook-chat' },
    });
    // Both the run and its one delivery are done: nothing is left that could send again.
    expect(await jobFinished(promptRuns, requestId)).toBe('completed');
    expect(await jobFinished(callbacks, deliveryIdFor(requestId))).toBe('completed');
    expect(receiver.on('/recorded')).toHaveLength(1);
    expect(fake.requests.length).toBe(modelCalls);
  });

  it('heals a webhook target Redis lost: the owner writes it again and the trigger is accepted', async () => {
    const redis = new Redis(TEST_REDIS_URL);
    const key = `waggle:webhook-targets:prompt_deployment:${hooked.prompt_endpoint_id}`;
    try {
      expect(await redis.del(key)).toBe(1);
      const response = await trigger(triggerUrl(hooked), validBody('/healed'), hooked.webhook_secret);
      expect(response.status).toBe(202);
      expect(await redis.exists(key)).toBe(1);
    } finally {
      redis.disconnect();
    }
    await expectEventually(() => expect(receiver.on('/healed')).toHaveLength(1));
  });

  it('loses nothing when the dispatcher is killed while a delivery waits for its retry', async () => {
    // Retry-After keeps the retry well clear of the kill (the spec's schedule is 300 ms).
    receiver.script('/killed', [{ status: 500, headers: { 'retry-after': '3' } }]);
    const response = await trigger(triggerUrl(hooked), validBody('/killed'), hooked.webhook_secret);
    const { request_id } = (await response.json()) as { request_id: string };
    await expectEventually(() => expect(receiver.on('/killed')).toHaveLength(1));
    // The first attempt is recorded and its retry scheduled: the job waits in the delayed set.
    await expectEventually(async () => expect(await callbacks.getJobState(deliveryIdFor(request_id))).toBe('delayed'));
    await apps.dispatcher.stop('SIGKILL');
    // The only process that sends callbacks is gone; the retry still waits in Redis.
    expect(receiver.on('/killed')).toHaveLength(1);
    expect(await callbacks.getJobState(deliveryIdFor(request_id))).toBe('delayed');
    await startDispatcher();
    await expectEventually(() => expect(receiver.on('/killed')).toHaveLength(2), { timeoutMs: 15_000 });
    const [delivery] = await expectEventually(async () => {
      const deliveries = await deliveryOf(request_id);
      expect(deliveries[0]?.status).toBe('succeeded');
      return deliveries;
    });
    expect(delivery.attempts.map((attempt) => attempt.status_code)).toEqual([500, 200]);
  });

  it('sends again a callback whose dispatcher was killed while sending it, with the same webhook-id', async () => {
    // The receiver holds the first request open; the dispatcher dies before it hears back.
    receiver.script('/killed-send', [{ status: 200, delayMs: 5_000 }]);
    const response = await trigger(triggerUrl(hooked), validBody('/killed-send'), hooked.webhook_secret);
    const { request_id } = (await response.json()) as { request_id: string };
    await expectEventually(() => expect(receiver.on('/killed-send')).toHaveLength(1));
    await apps.dispatcher.stop('SIGKILL');
    await startDispatcher();
    const arrived = await callbacksOn('/killed-send', 2, 15_000);
    expect(arrived[1].headers['webhook-id']).toBe(arrived[0].headers['webhook-id']);
    expect(arrived[1].body).toBe(arrived[0].body);
    const [delivery] = await expectEventually(async () => {
      const deliveries = await deliveryOf(request_id);
      expect(deliveries[0]?.status).toBe('succeeded');
      return deliveries;
    });
    // The killed attempt never came back, so only the one that did is on record.
    expect(delivery.attempts.map((attempt) => attempt.status_code)).toEqual([200]);
  });

  it('completes a run accepted while the invocation service is down once it is back', async () => {
    const invocation = apps.invocation;
    expect(await invocation.stop()).toBe(0);
    const response = await trigger(triggerUrl(hooked), validBody('/while-down'), hooked.webhook_secret);
    expect(response.status).toBe(202);
    const { request_id } = (await response.json()) as { request_id: string };
    // Accepted onto the queue with no worker to run it (the one process that could is stopped).
    expect(await promptRuns.getJobState(request_id)).toBe('waiting');
    expect(receiver.on('/while-down')).toHaveLength(0);

    apps.invocation = spawnApp('invocation', invocation.port, invocation.env);
    await waitUntilLive(apps.invocation);
    const [callback] = await callbacksOn('/while-down', 1, 15_000);
    expect(JSON.parse(callback.body)).toMatchObject({ event_type: 'prompt.completed', request_id });
  });

  it('runs again a trigger whose invocation replica was killed mid-run', async () => {
    // A replica whose own run time-out cannot end the held run before the kill does.
    const usual = apps.invocation;
    expect(await usual.stop()).toBe(0);
    apps.invocation = spawnApp('invocation', usual.port, { ...usual.env, PROMPT_TRIGGER_TIMEOUT_MS: '300000' });
    await waitUntilLive(apps.invocation);
    const response = await trigger(
      triggerUrl(hooked, 'slow'),
      validBody('/killed-run', { inputs: { question: 'survive this' } }),
      hooked.webhook_secret,
    );
    expect(response.status).toBe(202);
    const { request_id } = (await response.json()) as { request_id: string };
    const sentToModel = () => fake.requests.filter((request) => JSON.stringify(request.body).includes('survive this')).length;
    await expectEventually(() => expect(sentToModel()).toBe(1));
    const killed = apps.invocation;
    await killed.stop('SIGKILL');
    // The run the killed replica held never ended; the one run again answers at once.
    expect(fake.requests.find((request) => JSON.stringify(request.body).includes('survive this'))?.finishedAt).toBeUndefined();
    fake.setModel('fake-hook-slow', { latencyMs: 5 });
    apps.invocation = spawnApp('invocation', usual.port, usual.env);
    await waitUntilLive(apps.invocation);
    const [callback] = await callbacksOn('/killed-run', 1, 20_000);
    expect(JSON.parse(callback.body)).toMatchObject({
      event_type: 'prompt.completed',
      request_id,
      data: { response: 'Echo: survive this' },
    });
    // The killed run had no result, so the model was asked again: at least once, not never.
    expect(sentToModel()).toBe(2);
  });

  // Last: it deletes the workspace the other tests use. How soon (the gateway's 4 s cache,
  // like API keys') is proven with a controlled clock in active-workspaces.spec.ts.
  it("stops a deleted workspace's webhooks, like its API keys", async () => {
    expect((await trigger(triggerUrl(hooked), validBody('/deleted'), hooked.webhook_secret)).status).toBe(202);
    await cliJson(['workspace', 'delete', workspaceId, '--yes']);
    const refused = await expectEventually(
      async () => {
        const response = await trigger(triggerUrl(hooked), validBody('/deleted'), hooked.webhook_secret);
        expect(response.status).toBe(404);
        return (await response.json()) as Record<string, unknown>;
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    expect(refused).toMatchObject({ error_code: 'resource_not_found' });
  });
});
