import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ResolvedApiKey } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { REDIS_CLIENT } from '@waggle/platform';
import { waggleMetrics } from '@waggle/telemetry';
import type Redis from 'ioredis';
import { Clock } from './clock';
import { DailyApiMeter, type MeterDecision } from './daily-api-meter';

/** `waggle_meter_refusals_total` labels: the cap was reached, or the meter could not be asked. */
const DAILY_LIMIT = { reason: 'daily_limit' } as const;
const METER_UNAVAILABLE = { reason: 'meter_unavailable' } as const;

/**
 * The public API's daily meter as every metered request uses it: an HTTP route through
 * ApiMeterGuard, an MCP tool call through the MCP server (the spec's decisions, MCP: counted on
 * the public API meter per tool call). Without Redis nothing is let through unmetered: 503.
 */
@Injectable()
export class ApiMeter {
  private readonly logger = new Logger(ApiMeter.name);
  private readonly meter: DailyApiMeter;

  constructor(@Inject(REDIS_CLIENT) redis: Redis, clock: Clock) {
    this.meter = new DailyApiMeter(redis, clock);
  }

  /** Counts one request against the workspace's `rate_limit_per_day` and answers the decision; 503 when the meter cannot be asked. */
  async count(auth: ResolvedApiKey): Promise<MeterDecision> {
    try {
      return await this.meter.consume(auth.workspace_id, auth.limits.rate_limit_per_day);
    } catch (error) {
      this.logger.error({ err: error }, 'the API meter is unavailable');
      waggleMetrics().meterRefusals.add(1, METER_UNAVAILABLE);
      throw new WaggleException('upstream_request_failed', { status: 503, detail: 'metering_unavailable' });
    }
  }

  /** The refusal of a request the decision did not allow (429 `api_rate_limit_exceeded` with the limit and the count), counted. */
  refusal(decision: MeterDecision): WaggleException {
    waggleMetrics().meterRefusals.add(1, DAILY_LIMIT);
    const limit = decision.limit ?? 0;
    return new WaggleException('api_rate_limit_exceeded', { params: { limit }, extra: { limit, current: decision.current } });
  }

  /** Counts one request and throws its refusal when it is over the cap. */
  async admit(auth: ResolvedApiKey): Promise<MeterDecision> {
    const decision = await this.count(auth);
    if (!decision.allowed) throw this.refusal(decision);
    return decision;
  }
}
