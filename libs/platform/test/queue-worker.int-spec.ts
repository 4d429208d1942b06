import { getQueueToken } from '@nestjs/bullmq';
import { Global, Module, type INestApplicationContext } from '@nestjs/common';
import { context, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { NestFactory } from '@nestjs/core';
import { QueueNames, type CallbackDeliveryJob } from '@waggle/contracts';
import { expectEventually } from '@waggle/testing';
import type { Job } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import {
  APP_ENV,
  enqueue,
  QueueProcessor,
  queueRootModule,
  QueueWorker,
  REDIS_CLIENT,
  registerQueues,
  requestContext,
  type JobQueue,
  type RequestContextStore,
} from '../src';

const SETTINGS = { concurrency: 3, lockMs: 4_321, shutdownGraceMs: 2_000 };

/** Answers each job with the request id its log lines would carry and the trace it runs in. */
@QueueProcessor(QueueNames.callbacks, { maxStalledCount: 4 })
class ProbeWorker extends QueueWorker<'callbacks', { requestId: string | null; traceId: string | null }> {
  constructor() {
    super({ queue: QueueNames.callbacks, redisUrl: process.env.REDIS_URL as string, ...SETTINGS });
  }

  protected handle(): Promise<{ requestId: string | null; traceId: string | null }> {
    return Promise.resolve({
      requestId: requestContext.get()?.requestId ?? null,
      traceId: trace.getActiveSpan()?.spanContext().traceId ?? null,
    });
  }

  protected contextOf(job: CallbackDeliveryJob): RequestContextStore {
    return { requestId: job.request_id, workspaceId: job.workspace_id };
  }
}

/**
 * QueueWorker on @nestjs/bullmq, against the test Redis: the worker BullModule builds takes its
 * concurrency and stalled-job settings from the app's env (not from the decorator), its queue's
 * prefix and trace propagation from the root configuration, runs each job in its request's
 * context and its producer's trace, and is closed with the app.
 */
describe('a QueueWorker built by @nestjs/bullmq', () => {
  const prefix = `worker-${randomUUID()}`;
  let redis: Redis;
  let app: INestApplicationContext;
  // A global tracer provider, as telemetry.ts registers one in every app (AsyncLocalStorage context, W3C propagator).
  const tracing = new NodeTracerProvider();

  beforeAll(async () => {
    tracing.register();
    redis = new Redis(process.env.REDIS_URL as string, { maxRetriesPerRequest: 1 });

    @Global()
    @Module({
      providers: [
        { provide: REDIS_CLIENT, useValue: redis },
        { provide: APP_ENV, useValue: {} },
      ],
      exports: [REDIS_CLIENT, APP_ENV],
    })
    class TestPlatform {}

    @Module({ imports: [TestPlatform, queueRootModule({ prefix }), registerQueues([QueueNames.callbacks])], providers: [ProbeWorker] })
    class TestApp {}

    app = await NestFactory.createApplicationContext(TestApp, { logger: false });
    await app.init();
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await tracing.shutdown();
  });

  it('runs with the settings given by the env, on the prefix of the root configuration', () => {
    const worker = app.get(ProbeWorker).worker;
    expect(worker.isRunning()).toBe(true);
    expect(worker.concurrency).toBe(SETTINGS.concurrency);
    expect(worker.opts).toMatchObject({
      lockDuration: SETTINGS.lockMs,
      stalledInterval: SETTINGS.lockMs,
      maxStalledCount: 4,
      prefix,
    });
  });

  it("runs a job added through the registered queue inside its request's context and its producer's trace, with the queue's job options", async () => {
    const queue = app.get<JobQueue<'callbacks'>>(getQueueToken(QueueNames.callbacks));
    const requestId = `req_${randomUUID().replaceAll('-', '')}`;
    const producer = tracing.getTracer('test').startSpan('accept');
    await context.with(trace.setSpan(context.active(), producer), () =>
      enqueue(queue, `msg_${requestId}`, {
        delivery_id: `msg_${requestId}`,
        workspace_id: randomUUID(),
        request_id: requestId,
        event_type: 'prompt.completed',
        url: 'https://example.com/callback',
        body: { event_type: 'prompt.completed', request_id: requestId, data: { response: '', usage: null, model: '' } },
        owner: { kind: 'prompt_deployment', id: randomUUID() },
        run_ended_at: new Date().toISOString(),
      }),
    );
    producer.end();
    let job: Job | undefined;
    await expectEventually(async () => {
      job = await queue.getJob(`msg_${requestId}`);
      expect(job?.returnvalue).toEqual({ requestId, traceId: producer.spanContext().traceId });
    });
    expect(job?.name).toBe('deliver');
    expect(job?.opts.removeOnFail).toEqual({ age: 30 * 24 * 3600 });
    expect(await redis.exists(`${prefix}:${QueueNames.callbacks}:msg_${requestId}`)).toBe(1);
  });

  it('stops its worker with the app', async () => {
    const worker = app.get(ProbeWorker).worker;
    await app.close();
    expect(worker.isRunning()).toBe(false);
  });
});
