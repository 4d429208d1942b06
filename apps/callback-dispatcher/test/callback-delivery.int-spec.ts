import type { INestApplication } from '@nestjs/common';
import {
  CallbackPatterns,
  DeadLetterPatterns,
  QueueNames,
  send as sendTo,
  type CallbackDeliveryJob,
  type DeliverySummary,
  type RpcRequest,
} from '@waggle/contracts';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { loadConfig, NatsRpcClient, queueTelemetry } from '@waggle/platform';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { expectEventually } from '@waggle/testing';
import { digestWebhookSecret, generateWebhookSecret, SecretSealer, WebhookRegistry, type RegisteredSecret } from '@waggle/webhooks';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { createDispatcherApp } from '../src/bootstrap';
import { DeliveriesRepository } from '../src/deliveries/deliveries.repository';
import { CallbackDispatcherEnv } from '../src/config/callback-dispatcher.env';
// The switch startTelemetry flips is internal to the library on purpose; a test that records spans in process flips it itself.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { setSpansRecorded } from '../../../libs/telemetry/src/spans';
import { CallbackReceiver, type Behaviour } from './callback-receiver';

/**
 * The real dispatcher (BullMQ worker, PostgreSQL delivery log, NATS handlers) against a real
 * HTTP receiver on loopback. Jobs are added exactly as a producer service adds them: with
 * only a job id. Each run uses its own BullMQ prefix, so no other process takes its jobs.
 */
describe('callback-dispatcher delivery', () => {
  const prefix = `waggle-test-${randomUUID()}`;
  const env = loadConfig(CallbackDispatcherEnv, {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    CALLBACK_URL_ALLOWLIST: '127.0.0.1',
    CALLBACK_RETRY_SCHEDULE: '200ms,200ms',
    CALLBACK_RETRY_JITTER: '0',
    CALLBACK_TIMEOUT_MS: '1000',
    SHUTDOWN_GRACE_MS: '2000',
    // Failed attempts log warnings by design, and each delivery that ends in the failed set one
    // "callbacks job dead-lettered" error line; other errors would say something went wrong.
    LOG_LEVEL: process.env.LOG_LEVEL === 'warn' ? 'error' : (process.env.LOG_LEVEL ?? 'error'),
  });
  const sealer = SecretSealer.fromEnv({ NODE_ENV: 'test' });
  const receiver = new CallbackReceiver();
  let app: INestApplication;
  let redis: Redis;
  let queueConnection: Redis;
  let queue: Queue<CallbackDeliveryJob>;
  let registry: WebhookRegistry;
  let database: DataSource;
  let rpc: NatsRpcClient;
  const owners: string[] = [];

  beforeAll(async () => {
    await receiver.start();
    redis = new Redis(env.REDIS_URL);
    registry = new WebhookRegistry(redis);
    queueConnection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue<CallbackDeliveryJob>(QueueNames.callbacks, { connection: queueConnection, prefix });
    database = await new DataSource({ type: 'postgres', url: env.DATABASE_URL }).initialize();
    rpc = new NatsRpcClient(env, 'callback-dispatcher-test');
    await rpc.connect();
    app = await createDispatcherApp(env, { queuePrefix: prefix });
  });

  afterAll(async () => {
    await app?.close();
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await queueConnection?.quit();
    if (owners.length) await redis.del(...owners.map((id) => WebhookRegistry.key('prompt_deployment', id)));
    await redis?.quit();
    await database?.destroy();
    await rpc?.close();
    await receiver.stop();
  });

  const secretEntry = (secret: string, expiresAt: string | null = null): RegisteredSecret => ({
    digest: digestWebhookSecret(secret),
    sealed: sealer.seal(secret),
    expires_at: expiresAt,
  });

  interface Delivery {
    job: CallbackDeliveryJob;
    secret: string;
    path: string;
  }

  /** A delivery of a prompt run whose deployment is registered with one secret, enqueued as a producer would. */
  async function enqueue(
    options: {
      behaviour?: Behaviour;
      url?: string;
      secrets?: RegisteredSecret[];
      register?: boolean;
      workspaceId?: string;
      /** The producer's queue, when not the test's own (one that stores the caller's trace on the job). */
      through?: Queue<CallbackDeliveryJob>;
    } = {},
  ): Promise<Delivery> {
    const hex = randomBytes(16).toString('hex');
    const deliveryId = `msg_${hex}`;
    const requestId = `req_${hex}`;
    const path = `/hooks/${deliveryId}`;
    const url = options.url ?? receiver.on(path, options.behaviour ?? (() => ({ status: 200 })));
    const secret = generateWebhookSecret();
    const workspaceId = options.workspaceId ?? randomUUID();
    const ownerId = randomUUID();
    owners.push(ownerId);
    if (options.register !== false) {
      await registry.put({
        kind: 'prompt_deployment',
        id: ownerId,
        workspace_id: workspaceId,
        secrets: options.secrets ?? [secretEntry(secret)],
      });
    }
    const job: CallbackDeliveryJob = {
      delivery_id: deliveryId,
      workspace_id: workspaceId,
      request_id: requestId,
      event_type: 'prompt.completed',
      url,
      body: {
        event_type: 'prompt.completed',
        request_id: requestId,
        data: { response: 'Hola, ¿qué tal? 👋', usage: null, model: 'gpt-4o-mini' },
      },
      owner: { kind: 'prompt_deployment', id: ownerId },
      run_ended_at: new Date().toISOString(),
    };
    await (options.through ?? queue).add('deliver', job, { jobId: deliveryId });
    return { job, secret, path };
  }

  interface Row {
    status: string;
    attempt_count: number;
    next_attempt_at: Date | null;
    completed_at: Date | null;
  }
  interface AttemptRow {
    attempt: number;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
    attempted_at: Date;
  }

  const deliveryRow = async (id: string): Promise<Row | undefined> =>
    (
      (await database.query(
        `SELECT "status", "attempt_count", "next_attempt_at", "completed_at" FROM "callback_dispatcher"."deliveries" WHERE "id" = $1`,
        [id],
      )) as Row[]
    )[0];
  const attemptRows = async (id: string): Promise<AttemptRow[]> =>
    (await database.query(
      `SELECT "attempt", "status_code", "latency_ms", "error", "attempted_at" FROM "callback_dispatcher"."delivery_attempts" WHERE "delivery_id" = $1 ORDER BY "attempt"`,
      [id],
    )) as AttemptRow[];

  async function settled(id: string, status: string, timeoutMs = 10_000): Promise<Row> {
    return expectEventually(
      async () => {
        const row = await deliveryRow(id);
        expect(row?.status).toBe(status);
        return row as Row;
      },
      { timeoutMs, intervalMs: 25 },
    );
  }

  const webhookHeaders = (headers: Record<string, unknown>) => ({
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  });
  const serviceSignature = (secret: string, rawBody: string) =>
    `sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`;

  it('delivers once, with the job body byte for byte and both signatures verifying', async () => {
    const { job, secret, path } = await enqueue();
    await settled(job.delivery_id, 'succeeded');

    const [callback, ...more] = receiver.to(path);
    expect(more).toHaveLength(0);
    expect(callback?.rawBody).toBe(JSON.stringify(job.body));
    expect(JSON.parse(callback?.rawBody ?? '')).toEqual(job.body);
    expect(callback?.headers['content-type']).toBe('application/json');
    expect(callback?.headers['user-agent']).toBe('Waggle-Webhooks/1');
    expect(callback?.headers['x-service-signature']).toBe(serviceSignature(secret, callback?.rawBody ?? ''));
    expect(callback?.headers['webhook-id']).toBe(job.delivery_id);
    expect(new Webhook(secret).verify(callback?.rawBody ?? '', webhookHeaders(callback?.headers ?? {}))).toEqual(job.body);
    // A wrong secret does not verify: the check above can fail.
    expect(() => new Webhook(generateWebhookSecret()).verify(callback?.rawBody ?? '', webhookHeaders(callback?.headers ?? {}))).toThrow();

    const row = await deliveryRow(job.delivery_id);
    expect(row).toMatchObject({ status: 'succeeded', attempt_count: 1, next_attempt_at: null });
    // The timestamp is the attempt's own time, as recorded (not whenever the test looks).
    const [attempt] = await attemptRows(job.delivery_id);
    expect(Number(callback?.headers['webhook-timestamp'])).toBe(Math.floor(attempt.attempted_at.getTime() / 1000));
    expect(row?.completed_at).toBeInstanceOf(Date);
    const attempts = await attemptRows(job.delivery_id);
    expect(attempts).toEqual([
      { attempt: 1, status_code: 200, latency_ms: expect.any(Number), error: null, attempted_at: expect.any(Date) },
    ]);
    expect(await queue.getJobState(job.delivery_id)).toBe('completed');
  });

  it('delivers a burst of callbacks once each, their log rows written together', async () => {
    const burst = await Promise.all(Array.from({ length: 40 }, () => enqueue()));
    await expectEventually(
      async () => {
        const rows = (await database.query(`SELECT "status" FROM "callback_dispatcher"."deliveries" WHERE "id" = ANY($1::text[])`, [
          burst.map(({ job }) => job.delivery_id),
        ])) as Array<{ status: string }>;
        expect(rows.filter((row) => row.status === 'succeeded')).toHaveLength(burst.length);
      },
      { intervalMs: 25 },
    );
    for (const { job, path } of burst) {
      expect(receiver.to(path).map((callback) => callback.rawBody)).toEqual([JSON.stringify(job.body)]);
      expect((await attemptRows(job.delivery_id)).map(({ attempt, status_code }) => ({ attempt, status_code }))).toEqual([
        { attempt: 1, status_code: 200 },
      ]);
    }
  });

  it("refuses to batch a delivery log write inside a transaction, where it would carry other callers' rows", async () => {
    const deliveries = app.get(DeliveriesRepository);
    const hex = randomBytes(16).toString('hex');
    const job: CallbackDeliveryJob = {
      delivery_id: `msg_${hex}`,
      workspace_id: randomUUID(),
      request_id: `req_${hex}`,
      event_type: 'prompt.completed',
      url: 'https://example.com/hook',
      body: { event_type: 'prompt.completed', request_id: `req_${hex}`, data: { response: 'x', usage: null, model: 'gpt-4o-mini' } },
      owner: { kind: 'prompt_deployment', id: randomUUID() },
      run_ended_at: new Date().toISOString(),
    };
    await expect(deliveries.transaction(() => deliveries.open(job, job.delivery_id, JSON.stringify(job.body)))).rejects.toThrow(
      'never made inside a transaction',
    );
    // Outside one, the same call opens the delivery.
    await expect(deliveries.open(job, job.delivery_id, JSON.stringify(job.body))).resolves.toMatchObject({
      status: 'pending',
      attemptCount: 0,
    });
    expect(await deliveryRow(job.delivery_id)).toMatchObject({ status: 'pending', attempt_count: 0 });
  });

  it('does not send a finished delivery again when its job runs again', async () => {
    const { job, path } = await enqueue();
    await settled(job.delivery_id, 'succeeded');
    // As after a crash, or a producer enqueuing the same result once BullMQ forgot the first job.
    await queue.remove(job.delivery_id);
    await queue.add('deliver', job, { jobId: job.delivery_id });
    const rerun = await expectEventually(async () => {
      const found = await queue.getJob(job.delivery_id);
      expect(await found?.getState()).toBe('completed');
      return found;
    });
    expect(rerun?.returnvalue).toEqual({ delivery_id: job.delivery_id, status: 'succeeded', sent: false });
    expect(receiver.to(path)).toHaveLength(1);
    expect(await attemptRows(job.delivery_id)).toHaveLength(1);
  });

  it('retries failures per the schedule with the same webhook-id, recording every attempt', async () => {
    const { job, secret, path } = await enqueue({
      behaviour: (n) => (n === 1 ? { status: 500 } : n === 2 ? { status: 503 } : { status: 200 }),
    });
    await settled(job.delivery_id, 'succeeded');

    const callbacks = receiver.to(path);
    expect(callbacks).toHaveLength(3);
    expect(callbacks.map((callback) => callback.headers['webhook-id'])).toEqual([job.delivery_id, job.delivery_id, job.delivery_id]);
    for (const callback of callbacks)
      expect(new Webhook(secret).verify(callback.rawBody, webhookHeaders(callback.headers))).toEqual(job.body);
    // The schedule says 200 ms between attempts (no jitter in this test).
    expect((callbacks[1]?.receivedAt ?? 0) - (callbacks[0]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(180);
    expect((callbacks[2]?.receivedAt ?? 0) - (callbacks[1]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(180);

    const attempts = await attemptRows(job.delivery_id);
    expect(attempts.map(({ attempt, status_code, error }) => ({ attempt, status_code, error }))).toEqual([
      { attempt: 1, status_code: 500, error: 'receiver answered 500' },
      { attempt: 2, status_code: 503, error: 'receiver answered 503' },
      { attempt: 3, status_code: 200, error: null },
    ]);
    expect(await deliveryRow(job.delivery_id)).toMatchObject({ status: 'succeeded', attempt_count: 3 });
  });

  it('stops after a 410', async () => {
    const { job, path } = await enqueue({ behaviour: () => ({ status: 410 }) });
    await settled(job.delivery_id, 'gone');
    // The job is finished (failed), so nothing will run it again.
    await expectEventually(async () => expect(await queue.getJobState(job.delivery_id)).toBe('failed'));
    expect(receiver.to(path)).toHaveLength(1);
    expect(await attemptRows(job.delivery_id)).toEqual([expect.objectContaining({ attempt: 1, status_code: 410 })]);
    expect(await deliveryRow(job.delivery_id)).toMatchObject({ attempt_count: 1, next_attempt_at: null });
  });

  it('waits for Retry-After when it asks for longer than the schedule', async () => {
    const { job, path } = await enqueue({
      behaviour: (n) => (n === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }),
    });
    const waiting = await expectEventually(async () => {
      const row = await deliveryRow(job.delivery_id);
      expect(row).toMatchObject({ status: 'pending', attempt_count: 1 });
      return row as Row;
    });
    expect(await attemptRows(job.delivery_id)).toEqual([expect.objectContaining({ attempt: 1, status_code: 503 })]);
    // The row says when the next attempt is due.
    expect((waiting.next_attempt_at as Date).getTime() - (receiver.to(path)[0]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(900);
    await settled(job.delivery_id, 'succeeded');
    const [first, second] = receiver.to(path);
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('does not follow a redirect, counts it a failure, and dead-letters after the last attempt', async () => {
    const target = receiver.on(`/redirect-target/${randomUUID()}`, () => ({ status: 200 }));
    const { job, path } = await enqueue({ behaviour: () => ({ status: 302, headers: { location: target } }) });
    await settled(job.delivery_id, 'dead_lettered');

    expect(receiver.to(path)).toHaveLength(3);
    expect(receiver.to(new URL(target).pathname)).toHaveLength(0);
    const attempts = await attemptRows(job.delivery_id);
    expect(attempts.map(({ attempt, status_code, error }) => ({ attempt, status_code, error }))).toEqual(
      [1, 2, 3].map((attempt) => ({ attempt, status_code: 302, error: 'redirect (302) not followed' })),
    );
    expect(await deliveryRow(job.delivery_id)).toMatchObject({ status: 'dead_lettered', attempt_count: 3, next_attempt_at: null });
    // BullMQ's failed set is the dead-letter queue.
    await expectEventually(async () => expect(await queue.getJobState(job.delivery_id)).toBe('failed'));
    expect((await queue.getJob(job.delivery_id))?.failedReason).toMatch(/dead-lettered after attempt 3/);
  });

  it('counts a receiver that does not answer in time as a failure', async () => {
    const { job, path } = await enqueue({ behaviour: (n) => (n === 1 ? 'hang' : { status: 204 }) });
    await settled(job.delivery_id, 'succeeded');
    expect(receiver.to(path)).toHaveLength(2);
    const [first, second] = await attemptRows(job.delivery_id);
    expect(first).toMatchObject({ attempt: 1, status_code: null, error: 'no answer within 1000 ms' });
    expect(first?.latency_ms).toBeGreaterThanOrEqual(950);
    expect(second).toMatchObject({ attempt: 2, status_code: 204, error: null });
  });

  describe('refusals (SSRF guard)', () => {
    const bystander = new CallbackReceiver();
    beforeAll(() => bystander.start());
    afterAll(() => bystander.stop());

    it('refuses a private address without retrying', async () => {
      const { job } = await enqueue({ url: 'https://10.0.0.1/hooks/private?token=abc' });
      await settled(job.delivery_id, 'refused');
      expect(await attemptRows(job.delivery_id)).toEqual([
        expect.objectContaining({ attempt: 1, status_code: null, error: 'callback_url points to a private address' }),
      ]);
      await expectEventually(async () => expect(await queue.getJobState(job.delivery_id)).toBe('failed'));
    });

    it('refuses a host that resolves to a loopback address not on the allowlist, and never connects', async () => {
      const { job } = await enqueue({ url: `https://localhost:${bystander.portNumber}/hooks/loopback` });
      await settled(job.delivery_id, 'refused');
      const [attempt, ...more] = await attemptRows(job.delivery_id);
      expect(more).toHaveLength(0);
      expect(attempt).toMatchObject({ attempt: 1, status_code: null });
      expect(attempt?.error).toMatch(/^callback host resolves to a loopback address/);
      expect(bystander.connections).toBe(0);
      expect(bystander.received).toHaveLength(0);
    });
  });

  it('signs with every secret in force during a rotation, each signature verifying on its own', async () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const expired = generateWebhookSecret();
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const { job, path } = await enqueue({
      secrets: [secretEntry(current), secretEntry(previous, inAnHour), secretEntry(expired, new Date(Date.now() - 1_000).toISOString())],
    });
    await settled(job.delivery_id, 'succeeded');

    const [callback] = receiver.to(path);
    const rawBody = callback?.rawBody ?? '';
    expect(String(callback?.headers['x-service-signature']).split(', ')).toEqual([
      serviceSignature(current, rawBody),
      serviceSignature(previous, rawBody),
    ]);
    const standard = String(callback?.headers['webhook-signature']).split(' ');
    expect(standard).toHaveLength(2);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(rawBody, webhookHeaders(callback?.headers ?? {}))).toEqual(job.body);
      // Each secret verifies its own signature alone, not only the list.
      const own = standard.filter((signature) => {
        try {
          new Webhook(secret).verify(rawBody, { ...webhookHeaders(callback?.headers ?? {}), 'webhook-signature': signature });
          return true;
        } catch {
          return false;
        }
      });
      expect(own).toHaveLength(1);
    }
    expect(() => new Webhook(expired).verify(rawBody, webhookHeaders(callback?.headers ?? {}))).toThrow();
  });

  it('retries while the webhook owner is missing from the registry, then signs with its secret', async () => {
    const { job, secret, path } = await enqueue({ register: false });
    await expectEventually(
      async () =>
        expect((await attemptRows(job.delivery_id))[0]).toMatchObject({ attempt: 1, status_code: null, error: 'webhook owner not found' }),
      { intervalMs: 10 },
    );
    expect(receiver.to(path)).toHaveLength(0);
    await registry.put({ kind: 'prompt_deployment', id: job.owner.id, workspace_id: job.workspace_id, secrets: [secretEntry(secret)] });
    await settled(job.delivery_id, 'succeeded');
    const [callback] = receiver.to(path);
    expect(new Webhook(secret).verify(callback?.rawBody ?? '', webhookHeaders(callback?.headers ?? {}))).toEqual(job.body);
  });

  it("waits out its database while it is away, without spending the job's one attempt, then delivers", async () => {
    await database.query('ALTER TABLE callback_dispatcher.deliveries RENAME TO deliveries_away');
    let delivery: Delivery;
    try {
      delivery = await enqueue();
      // Refused with 42P01 (no fault of the delivery): the job waits in the delayed set, no attempt spent.
      await expectEventually(async () => {
        const job = await queue.getJob(delivery.job.delivery_id);
        expect({ state: await job?.getState(), attemptsMade: job?.attemptsMade, started: (job?.attemptsStarted ?? 0) >= 1 }).toEqual({
          state: 'delayed',
          attemptsMade: 0,
          started: true,
        });
      });
    } finally {
      await database.query('ALTER TABLE callback_dispatcher.deliveries_away RENAME TO deliveries');
    }
    await settled(delivery.job.delivery_id, 'succeeded');
    expect(receiver.to(delivery.path)).toHaveLength(1);
    await expectEventually(async () => expect(await queue.getJobState(delivery.job.delivery_id)).toBe('completed'));
  });

  it('loses nothing when the dispatcher stops while a delivery waits for its retry', async () => {
    const { job, path } = await enqueue({
      behaviour: (n) => (n === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }),
    });
    await expectEventually(async () => expect(await deliveryRow(job.delivery_id)).toMatchObject({ status: 'pending', attempt_count: 1 }));
    await app.close();
    expect(await queue.getJobState(job.delivery_id)).toBe('delayed');

    app = await createDispatcherApp(env, { queuePrefix: prefix });
    await settled(job.delivery_id, 'succeeded');
    expect(receiver.to(path)).toHaveLength(2);
    expect((await attemptRows(job.delivery_id)).map((attempt) => attempt.status_code)).toEqual([503, 200]);
  });

  /**
   * With spans recorded (an in-memory exporter, as an OTLP one would get them): each attempt is
   * a `callback delivery` client span in the trace of the run that produced the callback, and
   * its request carries that span's traceparent, outside both signatures.
   */
  describe('trace context', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    let traced: Queue<CallbackDeliveryJob>;

    beforeAll(() => {
      provider.register();
      setSpansRecorded(true);
      // As a producer service enqueues: BullMQ stores the caller's trace context on the job.
      traced = new Queue<CallbackDeliveryJob>(QueueNames.callbacks, { connection: queueConnection, prefix, telemetry: queueTelemetry() });
    });

    afterAll(async () => {
      await traced?.close();
      setSpansRecorded(false);
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    });

    it("makes a span per attempt in the run's trace, and sends each attempt's traceparent", async () => {
      const run = provider.getTracer('test').startSpan('run');
      const traceId = run.spanContext().traceId;
      const { job, secret, path } = await context.with(trace.setSpan(context.active(), run), () =>
        enqueue({ behaviour: (n) => (n === 1 ? { status: 500 } : { status: 200 }), through: traced }),
      );
      run.end();
      await settled(job.delivery_id, 'succeeded');

      const spans = exporter
        .getFinishedSpans()
        .filter((span) => span.name === 'callback delivery' && span.attributes['waggle.callback.delivery_id'] === job.delivery_id)
        .sort((a, b) => Number(a.attributes['waggle.callback.attempt']) - Number(b.attributes['waggle.callback.attempt']));
      expect(spans.map((span) => ({ traceId: span.spanContext().traceId, kind: span.kind, attributes: span.attributes }))).toEqual([
        {
          traceId,
          kind: SpanKind.CLIENT,
          attributes: {
            'waggle.callback.delivery_id': job.delivery_id,
            'waggle.callback.attempt': 1,
            'server.address': '127.0.0.1',
            'http.response.status_code': 500,
            'waggle.callback.outcome': 'retried',
          },
        },
        {
          traceId,
          kind: SpanKind.CLIENT,
          attributes: {
            'waggle.callback.delivery_id': job.delivery_id,
            'waggle.callback.attempt': 2,
            'server.address': '127.0.0.1',
            'http.response.status_code': 200,
            'waggle.callback.outcome': 'delivered',
          },
        },
      ]);
      expect(spans.map((span) => span.status.code)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.UNSET]);

      const callbacks = receiver.to(path);
      expect(callbacks.map((callback) => callback.headers.traceparent)).toEqual(
        spans.map((span) => `00-${traceId}-${span.spanContext().spanId}-01`),
      );
      // Not signed: both signatures still verify over the id, time and body alone.
      for (const callback of callbacks) {
        expect(new Webhook(secret).verify(callback.rawBody, webhookHeaders(callback.headers))).toEqual(job.body);
        expect(callback.headers['x-service-signature']).toBe(serviceSignature(secret, callback.rawBody));
      }
    });
  });

  describe('the delivery log over NATS', () => {
    const send = <P extends (typeof CallbackPatterns)[keyof typeof CallbackPatterns]>(pattern: P, payload: RpcRequest<P>) =>
      sendTo(rpc, pattern, payload, { timeoutMs: 5_000 });

    it("lists a workspace's deliveries newest first, with attempts, and filters them", async () => {
      const workspaceId = randomUUID();
      const first = await enqueue({ workspaceId, behaviour: (n) => (n === 1 ? { status: 500 } : { status: 200 }) });
      await settled(first.job.delivery_id, 'succeeded');
      const second = await enqueue({ workspaceId, behaviour: () => ({ status: 410 }) });
      await settled(second.job.delivery_id, 'gone');
      await enqueue();

      const listed = await send(CallbackPatterns.listDeliveries, { workspace_id: workspaceId });
      expect(listed.map((delivery) => delivery.delivery_id)).toEqual([second.job.delivery_id, first.job.delivery_id]);
      const summary = listed[1] as DeliverySummary;
      expect(summary).toEqual({
        delivery_id: first.job.delivery_id,
        request_id: first.job.request_id,
        event_type: 'prompt.completed',
        url: first.job.url,
        status: 'succeeded',
        attempts: [
          {
            attempt: 1,
            attempted_at: expect.any(String),
            status_code: 500,
            latency_ms: expect.any(Number),
            error: 'receiver answered 500',
          },
          { attempt: 2, attempted_at: expect.any(String), status_code: 200, latency_ms: expect.any(Number), error: null },
        ],
        created_at: expect.any(String),
        next_attempt_at: null,
        completed_at: expect.any(String),
      });
      expect(new Date(summary.created_at).toISOString()).toBe(summary.created_at);

      expect(
        (await send(CallbackPatterns.listDeliveries, { workspace_id: workspaceId, status: 'gone' })).map(
          (delivery) => delivery.delivery_id,
        ),
      ).toEqual([second.job.delivery_id]);
      expect(
        (await send(CallbackPatterns.listDeliveries, { workspace_id: workspaceId, request_id: first.job.request_id })).map(
          (delivery) => delivery.delivery_id,
        ),
      ).toEqual([first.job.delivery_id]);
      expect(await send(CallbackPatterns.listDeliveries, { workspace_id: workspaceId, limit: 1 })).toHaveLength(1);
    });

    it("gets one delivery, and not another workspace's", async () => {
      const { job } = await enqueue();
      await settled(job.delivery_id, 'succeeded');
      const found = await send(CallbackPatterns.getDelivery, { workspace_id: job.workspace_id, delivery_id: job.delivery_id });
      expect(found).toMatchObject({
        delivery_id: job.delivery_id,
        status: 'succeeded',
        attempts: [expect.objectContaining({ attempt: 1, status_code: 200 })],
      });

      await expect(send(CallbackPatterns.getDelivery, { workspace_id: randomUUID(), delivery_id: job.delivery_id })).rejects.toMatchObject({
        code: 'resource_not_found',
      });
      await expect(
        send(CallbackPatterns.getDelivery, { workspace_id: job.workspace_id, delivery_id: 'msg_00000000000000000000000000000000' }),
      ).rejects.toMatchObject({ code: 'resource_not_found' });
      await expect(send(CallbackPatterns.listDeliveries, { workspace_id: 'not-a-uuid' })).rejects.toMatchObject({
        code: expect.any(String),
      });
    });

    it('redelivers a dead-lettered delivery with the same id and body and a fresh retry budget', async () => {
      let healthy = false;
      const { job, secret, path } = await enqueue({ behaviour: () => (healthy ? { status: 200 } : { status: 500 }) });
      await settled(job.delivery_id, 'dead_lettered');
      expect(receiver.to(path)).toHaveLength(3);

      healthy = true;
      const answer = await send(CallbackPatterns.redeliver, { workspace_id: job.workspace_id, delivery_id: job.delivery_id });
      expect(answer).toMatchObject({ delivery_id: job.delivery_id, completed_at: null });
      expect(['pending', 'succeeded']).toContain(answer.status);
      await settled(job.delivery_id, 'succeeded');

      const callbacks = receiver.to(path);
      expect(callbacks).toHaveLength(4);
      expect(callbacks[3]?.headers['webhook-id']).toBe(job.delivery_id);
      expect(callbacks[3]?.rawBody).toBe(JSON.stringify(job.body));
      expect(new Webhook(secret).verify(callbacks[3]?.rawBody ?? '', webhookHeaders(callbacks[3]?.headers ?? {}))).toEqual(job.body);
      expect((await attemptRows(job.delivery_id)).map((attempt) => [attempt.attempt, attempt.status_code])).toEqual([
        [1, 500],
        [2, 500],
        [3, 500],
        [4, 200],
      ]);
      expect(await queue.getJobState(`${job.delivery_id}:redeliver:1`)).toBe('completed');

      // A second redelivery gets a job id of its own.
      await send(CallbackPatterns.redeliver, { workspace_id: job.workspace_id, delivery_id: job.delivery_id });
      await expectEventually(() => expect(receiver.to(path)).toHaveLength(5));
      await settled(job.delivery_id, 'succeeded');
      expect(await queue.getJobState(`${job.delivery_id}:redeliver:2`)).toBe('completed');
      await expect(send(CallbackPatterns.redeliver, { workspace_id: randomUUID(), delivery_id: job.delivery_id })).rejects.toMatchObject({
        code: 'resource_not_found',
      });
    });
  });

  describe('dead letters over NATS', () => {
    const list = () =>
      sendTo(rpc, DeadLetterPatterns.list['callback-dispatcher'], { source: 'callbacks', limit: 1000 }, { timeoutMs: 5_000 });
    const replay = (id: string) =>
      sendTo(rpc, DeadLetterPatterns.replay['callback-dispatcher'], { source: 'callbacks', id }, { timeoutMs: 5_000 });

    it('lists a dead-lettered delivery and replays it as a redelivery, after which it is no longer listed', async () => {
      let healthy = false;
      const { job, path } = await enqueue({ behaviour: () => (healthy ? { status: 200 } : { status: 500 }) });
      await settled(job.delivery_id, 'dead_lettered');
      await expectEventually(async () => expect(await queue.getJobState(job.delivery_id)).toBe('failed'));
      const listed = (await list()).filter((letter) => letter.id === job.delivery_id);
      expect(listed).toEqual([
        {
          source: 'callbacks',
          id: job.delivery_id,
          request_id: job.request_id,
          workspace_id: job.workspace_id,
          error: 'dead-lettered after attempt 3: receiver answered 500',
          attempts: 3,
          dead_lettered_at: expect.any(String),
          payload: JSON.stringify(job),
        },
      ]);

      healthy = true;
      expect(await replay(job.delivery_id)).toEqual({ source: 'callbacks', id: job.delivery_id, outcome: 'requeued', error: null });
      await settled(job.delivery_id, 'succeeded');
      expect(receiver.to(path)).toHaveLength(4);
      expect(receiver.to(path)[3]?.headers['webhook-id']).toBe(job.delivery_id);
      expect(await queue.getJobState(`${job.delivery_id}:redeliver:1`)).toBe('completed');
      // Superseded by its redelivery: no longer a dead letter, though BullMQ keeps the old job.
      expect(await queue.getJobState(job.delivery_id)).toBe('failed');
      expect((await list()).map((letter) => letter.id)).not.toContain(job.delivery_id);
      await expect(replay(job.delivery_id)).rejects.toMatchObject({ code: 'not_found' });
    });
  });
});
