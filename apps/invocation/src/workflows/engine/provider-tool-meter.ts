import { Inject, Injectable } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import { REDIS_CLIENT } from '@waggle/platform';
import type Redis from 'ioredis';

/**
 * Takes one unit if the day's count is under the cap (-1 = unlimited): check and increment in
 * one script, so parallel runs can never take more than the cap between them.
 */
const TAKE = `
local cap = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if cap >= 0 and current >= cap then return -1 end
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return count
`;

/** A day's key outlives the day by one, so late readers still see it. */
const KEY_TTL_SECONDS = 2 * 24 * 3600;

/** `waggle:meter:provider-tools:<workspace>:<UTC day>`. */
export function providerToolMeterKey(workspaceId: string, now: Date = new Date()): string {
  return `waggle:meter:provider-tools:${workspaceId}:${now.toISOString().slice(0, 10)}`;
}

/**
 * The spec's provider tool meter: costly third-party tool runs (web searches, scrapes) per
 * workspace per UTC day, a Redis counter like the public API meter. A run over the plan's cap
 * is refused with `provider_tool_rate_limit_exceeded`, which fails the step (the run fails with
 * the plain error string unless the step continues on error).
 */
@Injectable()
export class ProviderToolMeter {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  /** Counts one tool run, or refuses it when the day's cap is reached; `cap` null = unlimited. */
  async take(workspaceId: string, cap: number | null, now: Date = new Date()): Promise<number> {
    const count = (await this.redis.eval(TAKE, 1, providerToolMeterKey(workspaceId, now), cap ?? -1, KEY_TTL_SECONDS)) as number;
    if (count < 0) {
      throw new WaggleException('provider_tool_rate_limit_exceeded', {
        detail: 'provider_tool_calls_used_up',
        params: { cap: String(cap) },
      });
    }
    return count;
  }

  /** The day's count so far. */
  async used(workspaceId: string, now: Date = new Date()): Promise<number> {
    return Number((await this.redis.get(providerToolMeterKey(workspaceId, now))) ?? 0);
  }
}
