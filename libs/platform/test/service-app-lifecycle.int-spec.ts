import {
  Injectable,
  Module,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { HealthPatterns, send } from '@waggle/contracts';
import { startServiceApp } from '../src/app/create-service-app';
import { loadConfig, ServiceEnv } from '../src/config/env';
import { NatsRpcClient } from '../src/nats/nats-rpc.client';

const HOOKS = ['onModuleInit', 'onApplicationBootstrap', 'onModuleDestroy', 'beforeApplicationShutdown', 'onApplicationShutdown'] as const;
type Hook = (typeof HOOKS)[number];

const calls: Record<Hook, number> = Object.fromEntries(HOOKS.map((hook) => [hook, 0])) as Record<Hook, number>;

/** Counts every lifecycle hook Nest calls on it, as a queue worker or a subscription would. */
@Injectable()
class HookCounter implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown, OnApplicationShutdown {
  onModuleInit(): void {
    calls.onModuleInit += 1;
  }
  onApplicationBootstrap(): void {
    calls.onApplicationBootstrap += 1;
  }
  onModuleDestroy(): void {
    calls.onModuleDestroy += 1;
  }
  beforeApplicationShutdown(): void {
    calls.beforeApplicationShutdown += 1;
  }
  onApplicationShutdown(): void {
    calls.onApplicationShutdown += 1;
  }
}

@Module({ providers: [HookCounter] })
class CountingModule {}

describe('a service app built by startServiceApp', () => {
  it('runs each lifecycle hook exactly once, and answers over NATS in between', async () => {
    const env = loadConfig(ServiceEnv, { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    const app = await startServiceApp({ service: 'asset', env, dependencies: ['nats'], imports: [CountingModule] });
    const client = new NatsRpcClient(env, 'lifecycle-test');
    try {
      expect(calls).toEqual({
        onModuleInit: 1,
        onApplicationBootstrap: 1,
        onModuleDestroy: 0,
        beforeApplicationShutdown: 0,
        onApplicationShutdown: 0,
      });
      // Its NATS handlers are registered (with the RPC conventions) although the microservice ran no hooks itself.
      await client.connect();
      await expect(send(client, HealthPatterns.asset, {}, { timeoutMs: 5_000 })).resolves.toMatchObject({ service: 'asset' });
    } finally {
      await client.close();
      await app.close();
    }
    expect(calls).toEqual({
      onModuleInit: 1,
      onApplicationBootstrap: 1,
      onModuleDestroy: 1,
      beforeApplicationShutdown: 1,
      onApplicationShutdown: 1,
    });
  });
});
