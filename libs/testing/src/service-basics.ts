import type { INestApplication } from '@nestjs/common';
import { HealthPatterns, send, type DomainService } from '@waggle/contracts';
import type { WaggleException } from '@waggle/errors';
import { expectEventually } from './expect-eventually';
import { startServiceUnderTest, type ServiceUnderTest } from './service-under-test';

/**
 * What every service proves over NATS before it has patterns of its own: it answers its
 * health ping in its queue group, checks its own dependencies, refuses a bad payload with the
 * validation envelope and, once closed, is gone (502 at once, not a time-out). A new
 * service's `apps/<service>/test/<service>-service.int-spec.ts` starts with this and grows
 * its own specs beside it.
 */
export function describeServiceBasics(
  service: DomainService,
  bootstrap: () => Promise<INestApplication>,
  dependencies: readonly string[],
): void {
  describe(`${service} service over NATS`, () => {
    let underTest: ServiceUnderTest;
    const ping = HealthPatterns[service];

    beforeAll(async () => {
      underTest = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    });

    afterAll(async () => {
      await underTest?.stop();
    });

    // Readiness is each dependency answering within its 1 s check, live: on a loaded machine
    // one check can miss right after start, so both wait until the service reports ready.
    it(`answers ${ping} in its queue group`, async () => {
      await expectEventually(async () =>
        expect(await underTest.send(ping, {})).toEqual({ service, ready: true, uptime_s: expect.any(Number) }),
      );
    });

    it('checks its own dependencies on /health/ready', async () => {
      const details = Object.fromEntries(dependencies.map((dependency) => [dependency, { status: 'up' }]));
      await expectEventually(async () => {
        const response = await fetch(`${underTest.baseUrl}/health/ready`);
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ status: 'ok', details });
      });
    });

    it('refuses a ping that carries a payload, with the validation envelope', async () => {
      const refused = await underTest.send(ping, { extra: 1 } as never).catch((error: WaggleException) => error);
      expect(refused).toMatchObject({
        code: 'validation_error',
        status: 422,
        // The message travels as its id and parameters, rendered in the workspace's language where the body is built.
        details: [{ field: 'extra', messages: [{ detail: 'validation_unknown_property', params: { property: 'extra' } }] }],
      });
    });

    it('stops answering once closed: the next ping finds no one (502, not a time-out)', async () => {
      await underTest.closeApp();
      await expect(send(underTest.rpc, ping, {}, { timeoutMs: 10_000 })).rejects.toMatchObject({
        code: 'upstream_request_failed',
        status: 502,
      });
    });
  });
}
