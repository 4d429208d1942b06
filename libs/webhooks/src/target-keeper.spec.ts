import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';
import type { WebhookTarget } from './registry';
import { WebhookTargetKeeper, type WebhookTargetSource } from './target-keeper';

/** The part of an ioredis client the registry uses: a status, its events, and pipelined SETs that refuse while offline. */
class FakeRedis extends EventEmitter {
  status = 'connecting';
  readonly written = new Map<string, string>();

  pipeline() {
    const sets: Array<[string, string]> = [];
    const pipeline = {
      set: (key: string, value: string) => {
        sets.push([key, value]);
        return pipeline;
      },
      exec: async () => {
        if (this.status !== 'ready') throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
        for (const [key, value] of sets) this.written.set(key, value);
        return sets.map(() => [null, 'OK']);
      },
    };
    return pipeline;
  }

  connect(): void {
    this.status = 'ready';
    this.emit('ready');
  }
}

const target = (id: string): WebhookTarget => ({ kind: 'agent', id, workspace_id: 'w', secrets: [] });

function keeperOver(redis: FakeRedis, ids: string[]) {
  const source: WebhookTargetSource = {
    kind: 'agent',
    targets: async (wanted) => wanted.filter((id) => ids.includes(id)).map(target),
    idsPage: async (skip, take) => ids.slice(skip, skip + take),
  };
  const logged: unknown[] = [];
  const keeper = new WebhookTargetKeeper(redis as unknown as Redis, {
    resyncSeconds: 0,
    logger: { error: (entry) => logged.push(entry), warn: (entry) => logged.push(entry) },
  });
  keeper.register(source);
  return { keeper, logged };
}

describe('WebhookTargetKeeper', () => {
  it('writes every target at start once Redis is connected, not into a client still connecting', async () => {
    const redis = new FakeRedis();
    const { keeper, logged } = keeperOver(redis, ['a', 'b']);
    const started = keeper.start();
    redis.connect();
    await started;
    expect([...redis.written.keys()].sort()).toEqual(['waggle:webhook-targets:agent:a', 'waggle:webhook-targets:agent:b']);
    expect(logged).toEqual([]);
    keeper.stop();
  });

  it('writes every target again when Redis reconnects (a restarted Redis may have lost them)', async () => {
    const redis = new FakeRedis();
    redis.status = 'ready';
    const { keeper } = keeperOver(redis, ['a']);
    await keeper.start();
    redis.written.clear();
    redis.status = 'reconnecting';
    redis.connect();
    await new Promise((resolve) => setImmediate(resolve));
    expect([...redis.written.keys()]).toEqual(['waggle:webhook-targets:agent:a']);
    keeper.stop();
    redis.written.clear();
    redis.connect();
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.written.size).toBe(0);
  });

  it('starts anyway when Redis does not connect in time, and writes every target at the first connection', async () => {
    const redis = new FakeRedis();
    const { keeper, logged } = keeperOver(redis, ['a']);
    await keeper.start(10);
    expect(redis.written.size).toBe(0);
    redis.connect();
    await new Promise((resolve) => setImmediate(resolve));
    expect([...redis.written.keys()]).toEqual(['waggle:webhook-targets:agent:a']);
    expect(logged).toEqual([]);
    keeper.stop();
  });
});
