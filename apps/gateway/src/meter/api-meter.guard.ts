import { Inject, Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import { REDIS_CLIENT } from '@waggle/platform';
import { waggleMetrics } from '@waggle/telemetry';
import type { Response } from 'express';
import type Redis from 'ioredis';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { Clock } from './clock';
import { DailyApiMeter, type MeterDecision } from './daily-api-meter';

/** `waggle_meter_refusals_total` labels: the cap was reached, or the meter could not be asked. */
const DAILY_LIMIT = { reason: 'daily_limit' } as const;
const METER_UNAVAILABLE = { reason: 'meter_unavailable' } as const;

function setRateLimitHeaders(response: Response, decision: MeterDecision, now: Date): void {
  if (decision.limit === null) return;
  response.setHeader('X-RateLimit-Limit', String(decision.limit));
  response.setHeader('X-RateLimit-Remaining', String(Math.max(0, decision.limit - decision.current)));
  response.setHeader('X-RateLimit-Reset', String(Math.floor(decision.resetsAt.getTime() / 1000)));
  if (!decision.allowed) response.setHeader('Retry-After', String(Math.ceil((decision.resetsAt.getTime() - now.getTime()) / 1000)));
}

/**
 * Counts every API-key request on public and stream endpoints against the workspace's
 * `rate_limit_per_day`, before the request runs. Without Redis nothing is let through
 * unmetered: the answer is 503.
 */
@Injectable()
export class ApiMeterGuard implements CanActivate {
  private readonly logger = new Logger(ApiMeterGuard.name);
  private readonly meter: DailyApiMeter;

  constructor(
    @Inject(REDIS_CLIENT) redis: Redis,
    private readonly clock: Clock,
  ) {
    this.meter = new DailyApiMeter(redis, clock);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    let decision: MeterDecision;
    try {
      decision = await this.meter.consume(request.auth.workspace_id, request.auth.limits.rate_limit_per_day);
    } catch (error) {
      this.logger.error({ err: error }, 'the API meter is unavailable');
      waggleMetrics().meterRefusals.add(1, METER_UNAVAILABLE);
      throw new WaggleException('upstream_request_failed', {
        status: 503,
        detail: 'metering_unavailable',
      });
    }
    setRateLimitHeaders(http.getResponse<Response>(), decision, this.clock.now());
    if (!decision.allowed) {
      waggleMetrics().meterRefusals.add(1, DAILY_LIMIT);
      const limit = decision.limit ?? 0;
      throw new WaggleException('api_rate_limit_exceeded', { params: { limit }, extra: { limit, current: decision.current } });
    }
    return true;
  }
}
