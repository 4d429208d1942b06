import type Redis from 'ioredis';
import type { Clock } from './clock';

const DAY_MS = 86_400_000;

/**
 * Counts and checks in one step, so that with a cap of N exactly N requests of any
 * burst succeed: a request over the cap is refused without being counted.
 */
const CONSUME_SCRIPT = `
local limit = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if limit >= 0 and current >= limit then
  return {0, current}
end
current = redis.call('INCR', KEYS[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return {1, current}
`;

export interface MeterDecision {
  allowed: boolean;
  /** Requests counted today, this one included when allowed. */
  current: number;
  /** null: no cap. */
  limit: number | null;
  /** The next midnight UTC, when the count starts again. */
  resetsAt: Date;
}

type RedisWithMeter = Redis & { consumeDailyMeter(key: string, limit: number, ttlMs: number): Promise<[number, number]> };

export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10).replace(/-/g, '');
}

export function nextUtcMidnight(date: Date): Date {
  return new Date(Math.floor(date.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

/** The public API meter: one Redis counter per workspace per UTC day. */
export class DailyApiMeter {
  private readonly redis: RedisWithMeter;
  /** The current UTC day's number and its `YYYYMMDD`, formatted once a day rather than per request. */
  private day = { number: NaN, text: '' };

  constructor(
    redis: Redis,
    private readonly clock: Clock,
    private readonly keyPrefix = 'waggle:meter:api',
  ) {
    if (!('consumeDailyMeter' in redis)) redis.defineCommand('consumeDailyMeter', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
    this.redis = redis as RedisWithMeter;
  }

  async consume(workspaceId: string, limit: number | null): Promise<MeterDecision> {
    const now = this.clock.now();
    const resetsAt = nextUtcMidnight(now);
    const dayNumber = Math.floor(now.getTime() / DAY_MS);
    if (dayNumber !== this.day.number) this.day = { number: dayNumber, text: utcDay(now) };
    const key = `${this.keyPrefix}:${workspaceId}:${this.day.text}`;
    // Kept a day past its own day, for operators looking at yesterday's count.
    const ttlMs = resetsAt.getTime() - now.getTime() + DAY_MS;
    const [allowed, current] = await this.redis.consumeDailyMeter(key, limit ?? -1, ttlMs);
    return { allowed: allowed === 1, current, limit, resetsAt };
  }
}
