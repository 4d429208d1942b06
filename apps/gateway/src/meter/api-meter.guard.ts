import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { ApiMeter } from './api-meter';
import { Clock } from './clock';
import type { MeterDecision } from './daily-api-meter';

function setRateLimitHeaders(response: Response, decision: MeterDecision, now: Date): void {
  if (decision.limit === null) return;
  response.setHeader('X-RateLimit-Limit', String(decision.limit));
  response.setHeader('X-RateLimit-Remaining', String(Math.max(0, decision.limit - decision.current)));
  response.setHeader('X-RateLimit-Reset', String(Math.floor(decision.resetsAt.getTime() / 1000)));
  if (!decision.allowed) response.setHeader('Retry-After', String(Math.ceil((decision.resetsAt.getTime() - now.getTime()) / 1000)));
}

/**
 * Counts every API-key request on public and stream endpoints against the workspace's
 * `rate_limit_per_day` (ApiMeter), before the request runs, and says where the count stands in
 * the `X-RateLimit-*` headers.
 */
@Injectable()
export class ApiMeterGuard implements CanActivate {
  constructor(
    private readonly meter: ApiMeter,
    private readonly clock: Clock,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const decision = await this.meter.count(request.auth);
    setRateLimitHeaders(http.getResponse<Response>(), decision, this.clock.now());
    if (!decision.allowed) throw this.meter.refusal(decision);
    return true;
  }
}
