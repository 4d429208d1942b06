import { BaseEnv, loadConfig, WithRedis } from '@waggle/platform';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../src/meter/clock';
import { DailyApiMeter, nextUtcMidnight } from '../src/meter/daily-api-meter';

class MeterTestEnv extends WithRedis(BaseEnv) {}

/** A clock the test moves by hand. */
class ManualClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return this.current;
  }
  set(date: Date): void {
    this.current = date;
  }
}

describe('DailyApiMeter (real Redis)', () => {
  const redis = new Redis(loadConfig(MeterTestEnv).REDIS_URL);
  const prefix = `waggle:test:meter:${randomUUID()}`;

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('lets exactly the cap through a parallel burst and does not count refusals', async () => {
    const meter = new DailyApiMeter(redis, new ManualClock(new Date('2026-11-21T12:00:00Z')), prefix);
    const workspace = randomUUID();
    const decisions = await Promise.all(Array.from({ length: 50 }, () => meter.consume(workspace, 7)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(7);
    expect(decisions.filter((decision) => !decision.allowed).every((decision) => decision.current === 7)).toBe(true);
    expect(
      decisions
        .filter((decision) => decision.allowed)
        .map((decision) => decision.current)
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('starts counting again at midnight UTC', async () => {
    const clock = new ManualClock(new Date('2026-11-21T23:59:59.500Z'));
    const meter = new DailyApiMeter(redis, clock, prefix);
    const workspace = randomUUID();
    expect((await meter.consume(workspace, 2)).allowed).toBe(true);
    expect((await meter.consume(workspace, 2)).allowed).toBe(true);
    const refused = await meter.consume(workspace, 2);
    expect(refused).toMatchObject({ allowed: false, current: 2, limit: 2 });
    expect(refused.resetsAt.toISOString()).toBe('2026-11-22T00:00:00.000Z');

    clock.set(new Date('2026-11-22T00:00:00.000Z'));
    expect(await meter.consume(workspace, 2)).toMatchObject({ allowed: true, current: 1 });
  });

  it('counts without refusing when the plan has no cap', async () => {
    const meter = new DailyApiMeter(redis, new ManualClock(new Date('2026-11-21T08:00:00Z')), prefix);
    const workspace = randomUUID();
    for (let index = 1; index <= 3; index += 1)
      expect(await meter.consume(workspace, null)).toMatchObject({ allowed: true, current: index, limit: null });
  });

  it("keeps a day's counter only a day past its end", async () => {
    const now = new Date('2026-11-21T18:00:00Z');
    const meter = new DailyApiMeter(redis, new ManualClock(now), prefix);
    const workspace = randomUUID();
    await meter.consume(workspace, 5);
    const ttl = await redis.pttl(`${prefix}:${workspace}:20261121`);
    expect(ttl).toBeGreaterThan(nextUtcMidnight(now).getTime() - now.getTime());
    expect(ttl).toBeLessThanOrEqual(nextUtcMidnight(now).getTime() - now.getTime() + 86_400_000);
  });
});
