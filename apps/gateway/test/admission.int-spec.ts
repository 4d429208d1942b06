import { encodeBudgetField, encodeLimitField, GovernanceKeys } from '@waggle/contracts';
import { BaseEnv, loadConfig, WithRedis } from '@waggle/platform';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { GovernanceAdmission, nextUtcMidnight, type AdmissionRequest } from '../src/meter/admission';
import type { Clock } from '../src/meter/clock';

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

const SETTINGS = { defaultReservationMicros: 20_000, reservationTtlMs: 900_000 };
const AT = new Date('2026-11-21T12:00:00Z');

/**
 * The admission script against the real Redis: the daily meter as it always counted (exactly the
 * cap of a burst passes, refusals are not counted), and usage governance's rate limits, budgets
 * and credits in the same round trip, exact under concurrency.
 */
describe('GovernanceAdmission (real Redis)', () => {
  const redis = new Redis(loadConfig(MeterTestEnv).REDIS_URL);
  const prefix = `waggle:test:meter:${randomUUID()}`;
  const workspaces: string[] = [];

  afterAll(async () => {
    const keys = [
      ...(await redis.keys(`${prefix}:*`)),
      ...(await Promise.all(workspaces.map((id) => redis.keys(`waggle:gov:{${id}}:*`)))).flat(),
    ];
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  /** A workspace with its projection loaded: `fields` as the invocation service writes them. */
  async function workspace(fields: Record<string, string> = {}): Promise<string> {
    const id = randomUUID();
    workspaces.push(id);
    await redis.hset(GovernanceKeys.projection(id), { version: '1', ...fields });
    return id;
  }

  const admission = (clock: Clock = new ManualClock(AT)) => new GovernanceAdmission(redis, clock, SETTINGS, prefix);

  const ask = (workspaceId: string, overrides: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
    workspaceId,
    requestId: randomUUID(),
    keyId: 'key-1',
    runStarting: true,
    metered: true,
    dailyLimit: null,
    hostedCredits: false,
    tokenEstimate: 100,
    ...overrides,
  });

  describe('the daily meter', () => {
    it('lets exactly the cap through a parallel burst and does not count refusals', async () => {
      const meter = admission();
      const id = await workspace();
      const decisions = await Promise.all(Array.from({ length: 50 }, () => meter.admit(ask(id, { dailyLimit: 7 }))));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(7);
      expect(decisions.filter((decision) => !decision.allowed).every((decision) => decision.current === 7)).toBe(true);
      expect(decisions.filter((decision) => !decision.allowed).every((decision) => decision.refusal?.reason === 'daily_limit')).toBe(true);
      expect(
        decisions
          .filter((decision) => decision.allowed)
          .map((decision) => decision.current)
          .sort((a, b) => a - b),
      ).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });

    it('starts counting again at midnight UTC', async () => {
      const clock = new ManualClock(new Date('2026-11-21T23:59:59.500Z'));
      const meter = admission(clock);
      const id = await workspace();
      expect((await meter.admit(ask(id, { dailyLimit: 2 }))).allowed).toBe(true);
      expect((await meter.admit(ask(id, { dailyLimit: 2 }))).allowed).toBe(true);
      const refused = await meter.admit(ask(id, { dailyLimit: 2 }));
      expect(refused).toMatchObject({ allowed: false, current: 2, limit: 2 });
      expect(refused.resetsAt.toISOString()).toBe('2026-11-22T00:00:00.000Z');

      clock.set(new Date('2026-11-22T00:00:00.000Z'));
      expect(await meter.admit(ask(id, { dailyLimit: 2 }))).toMatchObject({ allowed: true, current: 1 });
    });

    it('counts without refusing when the plan has no cap', async () => {
      const meter = admission();
      const id = await workspace();
      for (let index = 1; index <= 3; index += 1)
        expect(await meter.admit(ask(id, { dailyLimit: null }))).toMatchObject({ allowed: true, current: index, limit: null });
    });

    it("keeps a day's counter only a day past its end", async () => {
      const now = new Date('2026-11-21T18:00:00Z');
      const meter = admission(new ManualClock(now));
      const id = await workspace();
      await meter.admit(ask(id, { dailyLimit: 5 }));
      const ttl = await redis.pttl(meter.meterKey(id, '20261121'));
      expect(ttl).toBeGreaterThan(nextUtcMidnight(now).getTime() - now.getTime());
      expect(ttl).toBeLessThanOrEqual(nextUtcMidnight(now).getTime() - now.getTime() + 86_400_000);
    });
  });

  describe('the projection', () => {
    it('answers unloaded to a run, changing nothing, while the projection is missing; meters a request that starts none', async () => {
      const id = randomUUID();
      workspaces.push(id);
      const decision = await admission().admit(ask(id, { dailyLimit: 5 }));
      expect(decision).toMatchObject({ unloaded: true, allowed: false });
      expect(await redis.exists(admission().meterKey(id, '20261121'))).toBe(0);
      expect(await admission().admit(ask(id, { dailyLimit: 5, runStarting: false }))).toMatchObject({
        unloaded: false,
        projectionMissing: true,
        allowed: true,
        current: 1,
      });
    });

    it('admits a run without the projection on the daily meter alone when its owner could not load it', async () => {
      const id = randomUUID();
      workspaces.push(id);
      const unprojected = ask(id, { dailyLimit: 1, hostedCredits: true, withoutProjection: true });
      expect(await admission().admit(unprojected)).toMatchObject({
        unloaded: false,
        projectionMissing: true,
        allowed: true,
        current: 1,
        creditsExhausted: false,
      });
      // The daily meter still holds.
      expect(await admission().admit(unprojected)).toMatchObject({ allowed: false, current: 1 });
    });

    it('answers unloaded while a plan with hosted credits has no balance in Redis, and flags a balance used up', async () => {
      const id = await workspace();
      expect(await admission().admit(ask(id, { hostedCredits: true }))).toMatchObject({ unloaded: true });
      await redis.set(GovernanceKeys.credits(id), '0');
      expect(await admission().admit(ask(id, { hostedCredits: true }))).toMatchObject({ allowed: true, creditsExhausted: true });
      await redis.set(GovernanceKeys.credits(id), '5');
      expect(await admission().admit(ask(id, { hostedCredits: true }))).toMatchObject({ allowed: true, creditsExhausted: false });
      // Only a run is concerned.
      await redis.set(GovernanceKeys.credits(id), '-3');
      expect(await admission().admit(ask(id, { hostedCredits: true, runStarting: false }))).toMatchObject({ creditsExhausted: false });
    });
  });

  describe('requests per minute', () => {
    it("admits exactly the key's limit of a parallel burst, and says when to retry, naming only the scope", async () => {
      const id = await workspace({ [`limit:key:key-1`]: encodeLimitField(5, null) });
      const meter = admission();
      const decisions = await Promise.all(Array.from({ length: 40 }, () => meter.admit(ask(id, { runStarting: false }))));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
      const refused = decisions.find((decision) => !decision.allowed);
      expect(refused?.refusal).toMatchObject({ reason: 'requests_per_minute', scope: 'api_key', limit: 5 });
      // Whole minute counted in one bucket: free again once the next minute has weighed it out.
      expect(refused?.refusal).toMatchObject({ retryAfterMs: expect.any(Number) });
      expect((refused?.refusal as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
      expect(refused?.requests).toEqual({ limit: 5, remaining: 0, resetMs: expect.any(Number) });
      // Refusals are not counted.
      expect(await redis.get(GovernanceKeys.window(id, 'requests', 'key:key-1', Math.floor(AT.getTime() / 60_000)))).toBe('5');
    });

    it('weighs the previous minute: half of it still counts half-way through the next', async () => {
      const id = await workspace({ [`limit:key:key-1`]: encodeLimitField(10, null) });
      const clock = new ManualClock(new Date('2026-11-21T12:00:00Z'));
      const meter = admission(clock);
      for (let index = 0; index < 10; index += 1) expect((await meter.admit(ask(id, { runStarting: false }))).allowed).toBe(true);
      expect((await meter.admit(ask(id, { runStarting: false }))).allowed).toBe(false);
      clock.set(new Date('2026-11-21T12:01:30Z'));
      const half = await Promise.all(Array.from({ length: 10 }, () => meter.admit(ask(id, { runStarting: false }))));
      expect(half.filter((decision) => decision.allowed)).toHaveLength(5);
    });

    it("limits the end user's requests of runs only, and reports the tighter scope", async () => {
      const id = await workspace({
        [`limit:key:key-1`]: encodeLimitField(100, null),
        [`limit:user:ann`]: encodeLimitField(2, null),
      });
      const meter = admission();
      expect(await meter.admit(ask(id, { user: 'ann' }))).toMatchObject({ allowed: true, requests: { limit: 2, remaining: 1 } });
      expect((await meter.admit(ask(id, { user: 'ann' }))).allowed).toBe(true);
      expect((await meter.admit(ask(id, { user: 'ann' }))).refusal).toMatchObject({ reason: 'requests_per_minute', scope: 'user' });
      expect((await meter.admit(ask(id, { user: 'bob' }))).allowed).toBe(true);
    });
  });

  describe('tokens per minute', () => {
    it('reserves each run’s estimate before it runs: a parallel burst never holds more than the limit', async () => {
      const id = await workspace({ [`limit:key:key-1`]: encodeLimitField(null, 1_000) });
      const meter = admission();
      const decisions = await Promise.all(Array.from({ length: 30 }, () => meter.admit(ask(id, { tokenEstimate: 300 }))));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(3);
      const refused = decisions.find((decision) => !decision.allowed);
      expect(refused?.refusal).toMatchObject({ reason: 'tokens_per_minute', scope: 'api_key', limit: 1_000 });
      expect(refused?.tokens).toMatchObject({ limit: 1_000, remaining: 100 });
      expect(await redis.get(GovernanceKeys.window(id, 'tokens', 'key:key-1', Math.floor(AT.getTime() / 60_000)))).toBe('900');
    });

    it('gives an estimate back when the run never began', async () => {
      const id = await workspace({ [`limit:key:key-1`]: encodeLimitField(null, 1_000) });
      const meter = admission();
      const first = ask(id, { tokenEstimate: 600 });
      expect((await meter.admit(first)).allowed).toBe(true);
      expect((await meter.admit(ask(id, { tokenEstimate: 600 }))).allowed).toBe(false);
      await meter.release(id, first.requestId);
      await meter.release(id, first.requestId);
      expect((await meter.admit(ask(id, { tokenEstimate: 600 }))).allowed).toBe(true);
    });
  });

  describe('budgets', () => {
    it('admits runs only while spend and pending reservations stay under the cap, under a parallel burst', async () => {
      const id = await workspace({ 'budget:ws:day': encodeBudgetField(100_000, 'b-ws', [80, 100]) });
      await redis.set(GovernanceKeys.runCostEstimate(id), '10000');
      await redis.set(GovernanceKeys.spend(id, 'ws', 'd20261121'), '30000');
      const meter = admission();
      const decisions = await Promise.all(Array.from({ length: 50 }, () => meter.admit(ask(id))));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(7);
      const refused = decisions.find((decision) => !decision.allowed);
      expect(refused?.refusal).toEqual({
        reason: 'budget',
        scope: 'workspace',
        scopeId: null,
        period: 'day',
        limitMicros: 100_000,
        spentMicros: 30_000,
      });
      expect(await redis.hget(GovernanceKeys.pendingAmounts(id, 'ws'), 'total')).toBe('70000');
    });

    it("refuses on the key's and the user's month budgets, naming them", async () => {
      const id = await workspace({
        'budget:key:key-1:month': encodeBudgetField(50_000, 'b-key', [100]),
        'budget:user:ann:month': encodeBudgetField(5_000, 'b-user', [100]),
      });
      await redis.set(GovernanceKeys.spend(id, 'key:key-1', 'm202611'), '50000');
      await redis.set(GovernanceKeys.spend(id, 'user:ann', 'm202611'), '5000');
      const meter = admission();
      expect((await meter.admit(ask(id))).refusal).toMatchObject({ reason: 'budget', scope: 'api_key', scopeId: 'key-1', period: 'month' });
      expect((await meter.admit(ask(id, { keyId: 'key-2', user: 'ann' }))).refusal).toMatchObject({
        reason: 'budget',
        scope: 'user',
        scopeId: 'ann',
        spentMicros: 5_000,
      });
      expect((await meter.admit(ask(id, { keyId: 'key-2', user: 'bob' }))).allowed).toBe(true);
    });

    it('stops counting a reservation never reconciled once it expires', async () => {
      const id = await workspace({ 'budget:ws:day': encodeBudgetField(20_000, 'b-ws', [100]) });
      const clock = new ManualClock(AT);
      const meter = admission(clock);
      expect((await meter.admit(ask(id))).allowed).toBe(true);
      expect((await meter.admit(ask(id))).allowed).toBe(false);
      clock.set(new Date(AT.getTime() + SETTINGS.reservationTtlMs + 1));
      expect((await meter.admit(ask(id))).allowed).toBe(true);
      expect(await redis.zcard(GovernanceKeys.pending(id, 'ws'))).toBe(1);
      expect(await redis.hget(GovernanceKeys.pendingAmounts(id, 'ws'), 'total')).toBe('20000');
    });

    it('writes the run’s reservation: what reconciliation releases', async () => {
      const id = await workspace({
        'budget:ws:month': encodeBudgetField(1_000_000, 'b-ws', [100]),
        'limit:user:ann': encodeLimitField(null, 10_000),
      });
      const request = ask(id, { user: 'ann', tokenEstimate: 321 });
      expect((await admission().admit(request)).allowed).toBe(true);
      expect(await redis.hgetall(GovernanceKeys.reservation(id, request.requestId))).toEqual({
        tokens: '321',
        minute: String(Math.floor(AT.getTime() / 60_000)),
        key: 'key-1',
        user: 'ann',
        cost: '20000',
        'cost:ws': '1',
        'tokens:user': '1',
      });
      expect(await redis.pttl(GovernanceKeys.reservation(id, request.requestId))).toBeGreaterThan(0);
    });
  });
});
