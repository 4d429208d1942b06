import { randomBytes } from 'node:crypto';
import { expectEventually, freePort, OtlpReceiver, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';

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

  it('puts the gateway span and the service span in the client trace, parent to child', async () => {
    const [gateway] = apps;
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    await expectEventually(async () => {
      const response = await fetch(`${gateway.baseUrl}/health/ready`, { headers: { traceparent: `00-${traceId}-${callerSpanId}-01` } });
      const body = (await response.json()) as { services: { catalog: { status: string } } };
      expect(body.services.catalog.status).toBe('up');
    });

    await expectEventually(() => {
      const spans = receiver.spans.filter((span) => span.traceId === traceId);
      const send = spans.find((span) => span.service === 'waggle-gateway' && span.name === 'send catalog.health.ping');
      const process = spans.find((span) => span.service === 'waggle-catalog' && span.name === 'process catalog.health.ping');
      expect(send).toBeDefined();
      expect(process).toBeDefined();
      expect(process?.parentSpanId).toBe(send?.spanId);
      // The gateway's HTTP server span continues the caller's span.
      expect(spans.some((span) => span.service === 'waggle-gateway' && span.parentSpanId === callerSpanId)).toBe(true);
    }, { timeoutMs: 10_000, intervalMs: 200 });
  });
});
