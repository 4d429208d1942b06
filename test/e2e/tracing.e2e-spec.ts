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
 * With an exporter the HTTP instrumentation makes the gateway's server span, and every answer
 * names it in `traceparent` (W3C traceresponse): a client can quote the very span an operator
 * finds, sampled flag included.
 */
describe('traceparent on answers, with an exporter', () => {
  const receiver = new OtlpReceiver();
  let gateway: AppProcess;

  beforeAll(async () => {
    const endpoint = await receiver.start();
    gateway = spawnApp('gateway', await freePort(), {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      LOG_LEVEL: 'warn',
    });
    await waitUntilLive(gateway);
  });

  afterAll(async () => {
    await gateway?.stop();
    await receiver.stop();
  });

  it("names the gateway's exported server span, child of the caller's, on a success, a 401 and an unrouted 404", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const traceparent = `00-${traceId}-${callerSpanId}-01`;
    const answers = [
      await fetch(`${gateway.baseUrl}/v1/public/openapi.json`, { headers: { traceparent } }),
      // No key at all: refused before anything else is asked.
      await fetch(`${gateway.baseUrl}/v1/models`, { headers: { traceparent } }),
      await fetch(`${gateway.baseUrl}/v1/no-such-route`, { headers: { traceparent } }),
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 401, 404]);
    const spanIds = answers.map((response) => {
      const [, answeredTrace, spanId, flags] =
        /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(response.headers.get('traceparent') ?? '') ?? [];
      expect({ answeredTrace, flags }).toEqual({ answeredTrace: traceId, flags: '01' });
      return spanId;
    });
    await expectEventually(
      () => {
        const servers = receiver.spans.filter((span) => span.traceId === traceId && span.parentSpanId === callerSpanId);
        expect(servers.map((span) => span.spanId).sort()).toEqual([...spanIds].sort());
        expect(servers.every((span) => span.service === 'waggle-gateway' && span.kind === 2)).toBe(true);
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
  });

  it('gives an untraced health probe, which records no span, a traceparent of its own', async () => {
    const response = await fetch(`${gateway.baseUrl}/health/live`);
    expect(response.status).toBe(200);
    expect(response.headers.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
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
