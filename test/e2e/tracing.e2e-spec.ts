import { randomBytes } from 'node:crypto';
import { RpcHeaders } from '@waggle/contracts';
import { expectEventually, freePort, OtlpReceiver, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import { connect, type NatsConnection } from 'nats';

/**
 * One client request is one trace: the gateway continues the caller's W3C trace
 * context, and the NATS hop carries it to the service, each process exporting its own
 * spans over OTLP.
 */
describe('trace context across the NATS hop', () => {
  const receiver = new OtlpReceiver();
  const apps: AppProcess[] = [];

  beforeAll(async () => {
    const endpoint = await receiver.start();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100', LOG_LEVEL: 'warn' };
    apps.push(spawnApp('gateway', await freePort(), env), spawnApp('catalog', await freePort(), env));
    await Promise.all(apps.map((app) => waitUntilLive(app)));
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await receiver.stop();
  });

  it('puts the gateway spans and the service span in the client trace, parent to child, one span per hop', async () => {
    const [gateway] = apps;
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    await expectEventually(async () => {
      const response = await fetch(`${gateway.baseUrl}/health/ready`, { headers: { traceparent: `00-${traceId}-${callerSpanId}-01` } });
      const body = (await response.json()) as { services: { catalog: { status: string } } };
      expect(body.services.catalog.status).toBe('up');
    });

    await expectEventually(
      () => {
        const spans = receiver.spans.filter((span) => span.traceId === traceId);
        const send = spans.find((span) => span.service === 'waggle-gateway' && span.name === 'send catalog.health.ping');
        const process = spans.find((span) => span.service === 'waggle-catalog' && span.name === 'process catalog.health.ping');
        expect(send).toBeDefined();
        expect(process).toBeDefined();
        expect(process?.parentSpanId).toBe(send?.spanId);
        // The gateway's HTTP server span continues the caller's span, is named after its route,
        // and is the NATS span's parent: one span per process and request, no layer spans between.
        const server = spans.find((span) => span.service === 'waggle-gateway' && span.parentSpanId === callerSpanId);
        expect(server?.name).toBe('GET /health/ready');
        expect(send?.parentSpanId).toBe(server?.spanId);
        // Readiness asks every service: each ask is a NATS span right under the server span.
        const others = spans.filter((span) => span.service === 'waggle-gateway' && span !== server);
        expect(others.every((span) => span.name.startsWith('send ') && span.parentSpanId === server?.spanId)).toBe(true);
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
  });
});

/**
 * As `npm run up` runs it, with no OTLP endpoint: no span is recorded (nothing would read
 * it), yet the caller's trace id still crosses the NATS hop and reaches the access log.
 */
describe('trace context without an exporter', () => {
  const apps: AppProcess[] = [];
  let nats: NatsConnection;

  beforeAll(async () => {
    const env = { LOG_LEVEL: 'info' };
    apps.push(spawnApp('gateway', await freePort(), env), spawnApp('catalog', await freePort(), env));
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    nats = await connect({ servers: (process.env.NATS_URL ?? 'nats://127.0.0.1:4222').split(',') });
  });

  afterAll(async () => {
    await nats?.close();
    await Promise.all(apps.map((app) => app.stop()));
  });

  it("carries the caller's trace id in the NATS headers and the gateway's access log", async () => {
    const [gateway] = apps;
    const traceId = randomBytes(16).toString('hex');
    // A listener of our own beside the catalog's queue group sees what the gateway sent.
    const sent = nats.subscribe('catalog.api-keys.resolve', { max: 1 });
    await nats.flush();
    const response = await fetch(`${gateway.baseUrl}/v1/models`, {
      headers: {
        authorization: `Bearer wgl_${randomBytes(20).toString('hex')}`,
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
    });
    expect(response.status).toBe(401);
    for await (const message of sent)
      expect(message.headers?.get(RpcHeaders.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));
    await expectEventually(() => {
      const accessLine = gateway
        .output()
        .split('\n')
        .find((line) => line.includes('/v1/models') && line.includes('"status_code":401'));
      expect(accessLine && (JSON.parse(accessLine) as { trace_id?: string }).trace_id).toBe(traceId);
    });
  });
});
