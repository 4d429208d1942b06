import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern } from '@nestjs/microservices';
import { sendRpc, type RpcPattern } from '@waggle/contracts';
import { applyRpcConventions, BaseEnv, GracefulNatsServer, loadConfig, NatsRpcClient } from '@waggle/platform';
import { expectEventually } from '@waggle/testing';

const SLOW_MS = 600;

@Controller()
class SlowController {
  @MessagePattern('test.graceful.slow')
  async slow(): Promise<{ finished: boolean }> {
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    return { finished: true };
  }
}

@Module({ controllers: [SlowController] })
class SlowModule {}

describe('GracefulNatsServer shutdown', () => {
  const { NATS_URL } = loadConfig(BaseEnv);
  let client: NatsRpcClient;
  let server: GracefulNatsServer;
  let service: INestMicroservice;

  beforeEach(async () => {
    client = new NatsRpcClient(NATS_URL, 'graceful-test');
    await client.connect();
    server = new GracefulNatsServer({ servers: NATS_URL.split(','), queue: 'test-graceful' }, 5_000);
    service = await NestFactory.createMicroservice(SlowModule, { strategy: server, logger: false });
    applyRpcConventions(service);
    await service.listen();
  });

  afterEach(async () => {
    await client.close();
  });

  const slowCall = (timeoutMs = 5_000) => sendRpc(client, 'test.graceful.slow' as RpcPattern, {}, { timeoutMs });

  it('answers every request already received, then stops taking new ones', async () => {
    const inflight = [slowCall(), slowCall(), slowCall()];
    await expectEventually(() => expect(server.inflightCount).toBe(3), { timeoutMs: 2_000, intervalMs: 10 });

    const closing = service.close();
    await expect(Promise.all(inflight)).resolves.toEqual([{ finished: true }, { finished: true }, { finished: true }]);
    await closing;

    // Nobody is subscribed any more: the next request is refused, not silently queued.
    await expect(slowCall()).rejects.toMatchObject({ code: 'upstream_request_failed' });
  });

  it('gives up waiting after the grace period', async () => {
    const impatient = new GracefulNatsServer({ servers: NATS_URL.split(','), queue: 'test-graceful-impatient' }, 100);
    await service.close();
    service = await NestFactory.createMicroservice(SlowModule, { strategy: impatient, logger: false });
    await service.listen();
    const call = slowCall(1_500).catch((error: unknown) => error);
    await expectEventually(() => expect(impatient.inflightCount).toBe(1), { timeoutMs: 2_000, intervalMs: 10 });
    const started = Date.now();
    await service.close();
    expect(Date.now() - started).toBeLessThan(SLOW_MS);
    // Work still running past the grace period loses its reply; the caller times out.
    await expect(call).resolves.toMatchObject({ code: 'upstream_request_failed' });
  });
});
