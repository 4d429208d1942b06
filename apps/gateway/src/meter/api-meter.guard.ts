import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { requestContext } from '@waggle/platform';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { resetDuration } from './admission-input';
import type { AdmissionDecision } from './admission';
import { ApiMeter, retryAfterSeconds } from './api-meter';
import { Clock } from './clock';

/**
 * The headers of an admission: the daily meter's `X-RateLimit-*` (when the plan caps the day),
 * OpenAI's `x-ratelimit-*-requests` and `-tokens` trios (when a rate limit applies to the key or
 * the user; the tighter scope's numbers) and `Retry-After` on a refusal that passes with time.
 */
export function setAdmissionHeaders(response: Pick<Response, 'setHeader'>, decision: AdmissionDecision, now: Date): void {
  if (decision.limit !== null) {
    response.setHeader('X-RateLimit-Limit', String(decision.limit));
    response.setHeader('X-RateLimit-Remaining', String(Math.max(0, decision.limit - decision.current)));
    response.setHeader('X-RateLimit-Reset', String(Math.floor(decision.resetsAt.getTime() / 1000)));
  }
  for (const [suffix, window] of [
    ['requests', decision.requests],
    ['tokens', decision.tokens],
  ] as const) {
    if (!window) continue;
    response.setHeader(`x-ratelimit-limit-${suffix}`, String(window.limit));
    response.setHeader(`x-ratelimit-remaining-${suffix}`, String(window.remaining));
    response.setHeader(`x-ratelimit-reset-${suffix}`, resetDuration(window.resetMs));
  }
  const retryAfter = retryAfterSeconds(decision, now.getTime());
  if (!decision.allowed && retryAfter !== undefined) response.setHeader('Retry-After', String(retryAfter));
}

/** Answers that say the run never began: what it reserved is given back at once instead of lapsing. */
function refusedBeforeRun(status: number): boolean {
  return (status >= 400 && status < 500) || status === 503;
}

/**
 * Admits every API-key request on public and stream endpoints before it runs (ApiMeter: the
 * daily meter, and the key's requests per minute), and says where it stands in the headers.
 */
@Injectable()
export class ApiMeterGuard implements CanActivate {
  protected readonly runStarting: boolean = false;

  constructor(
    private readonly meter: ApiMeter,
    private readonly clock: Clock,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const response = http.getResponse<Response>();
    const requestId = requestContext.get()?.requestId ?? '';
    const decision = await this.meter.count(request.auth, {
      runStarting: this.runStarting,
      requestId,
      body: request.body,
      contentLength: request.headers['content-length'],
    });
    setAdmissionHeaders(response, decision, this.clock.now());
    if (!decision.allowed) throw this.meter.refusal(decision);
    if (this.runStarting) {
      const workspaceId = request.auth.workspace_id;
      response.once('finish', () => {
        if (refusedBeforeRun(response.statusCode)) this.meter.release(workspaceId, requestId);
      });
    }
    return true;
  }
}

/** The admission of a route that starts a run: also the end user's limits, the tokens per minute, the budgets and the credits. */
@Injectable()
export class RunAdmissionGuard extends ApiMeterGuard {
  protected override readonly runStarting = true;
}
