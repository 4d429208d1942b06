import { Inject, Injectable, Logger } from '@nestjs/common';
import { GovernancePatterns, send, type ResolvedApiKey } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, NatsRpcClient, REDIS_CLIENT, requestContext } from '@waggle/platform';
import { waggleMetrics } from '@waggle/telemetry';
import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { GatewayEnv } from '../config/gateway.env';
import { GovernanceAdmission, type AdmissionDecision, type AdmissionRequest } from './admission';
import { bodyBytesOf, endUserOf, tokenEstimate } from './admission-input';
import { Clock } from './clock';

/** `waggle_meter_refusals_total` labels: the cap was reached, or the meter could not be asked. */
const DAILY_LIMIT = { reason: 'daily_limit' } as const;
const METER_UNAVAILABLE = { reason: 'meter_unavailable' } as const;
/** After a background projection load failed, how long before another is tried for the workspace. */
const LOAD_RETRY_MS = 10_000;

/** What a metered call is beside its API key: whether it starts a run, and that run's body and request id. */
export interface MeteredCall {
  runStarting: boolean;
  requestId: string;
  /** The run's input as the client sent it: its `user` and its size make the end user and the token estimate. */
  body?: unknown;
  /** The body's size (bytes) when known (Content-Length); else its JSON text's. */
  contentLength?: string;
}

/**
 * The admission of every metered request as the public surfaces use it: an HTTP route through
 * ApiMeterGuard, an MCP tool call through the MCP server (the spec's decisions, MCP: counted on
 * the public API meter per tool call), a webhook trigger (its workspace and user budgets only).
 * One Redis round trip (GovernanceAdmission) counts the daily meter and checks the rate limits,
 * budgets and credits of usage governance (the spec's decisions on usage governance). When the
 * workspace's projection is not in Redis (first request, or Redis lost it) the invocation
 * service is asked to load it (GovernancePatterns.loadProjection, over NATS) and the request is
 * admitted again: the cold path only. Without Redis nothing is let through unmetered: 503.
 */
@Injectable()
export class ApiMeter {
  private readonly logger = new Logger(ApiMeter.name);
  private readonly admission: GovernanceAdmission;
  /** Projection loads under way, one per workspace. */
  private readonly loading = new Map<string, Promise<void>>();
  /** Workspaces whose background load just failed: not asked again before LOAD_RETRY_MS. */
  private readonly loadFailed = new LRUCache<string, true>({ max: 10_000, ttl: LOAD_RETRY_MS });

  constructor(
    @Inject(REDIS_CLIENT) redis: Redis,
    clock: Clock,
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: GatewayEnv,
  ) {
    this.admission = new GovernanceAdmission(redis, clock, {
      defaultReservationMicros: env.GOVERNANCE_DEFAULT_RUN_RESERVATION_MICROS,
      reservationTtlMs: env.GOVERNANCE_RESERVATION_TTL_MS,
    });
  }

  /** Admits one API-key request (counted when admitted) and answers the decision; 503 when the meter cannot be asked. */
  count(auth: ResolvedApiKey, call: MeteredCall = { runStarting: false, requestId: '' }): Promise<AdmissionDecision> {
    return this.decide({
      workspaceId: auth.workspace_id,
      requestId: call.requestId,
      keyId: auth.key_id,
      user: call.runStarting ? endUserOf(call.body) : undefined,
      runStarting: call.runStarting,
      metered: true,
      dailyLimit: auth.limits.rate_limit_per_day,
      hostedCredits: auth.hosted_credits === true,
      tokenEstimate: call.runStarting ? this.estimate(call) : 0,
    });
  }

  /**
   * A webhook trigger's run: it has no API key and is not on the daily meter, so its workspace's
   * and its end user's budgets and the user's rate limits apply. The plan is not known here, so
   * credits are not looked at (the run's own service does).
   */
  async admitTrigger(workspaceId: string, call: MeteredCall): Promise<AdmissionDecision> {
    const decision = await this.decide({
      workspaceId,
      requestId: call.requestId,
      user: endUserOf(call.body),
      runStarting: true,
      metered: false,
      dailyLimit: null,
      hostedCredits: false,
      tokenEstimate: this.estimate(call),
    });
    if (!decision.allowed) throw this.refusal(decision);
    return decision;
  }

  /** The refusal of a request the decision did not allow, counted: 429 `api_rate_limit_exceeded` or `too_many_requests`, 422 `account_credit_cap_reached`. */
  refusal(decision: AdmissionDecision): WaggleException {
    const refusal = decision.refusal;
    if (!refusal || refusal.reason === 'daily_limit') {
      waggleMetrics().meterRefusals.add(1, DAILY_LIMIT);
      const limit = decision.limit ?? 0;
      return new WaggleException('api_rate_limit_exceeded', { params: { limit }, extra: { limit, current: decision.current } });
    }
    waggleMetrics().governanceRefusals.add(1, { scope: refusal.scope, reason: refusal.reason });
    if (refusal.reason === 'budget')
      return new WaggleException('account_credit_cap_reached', {
        detail: `budget_reached_${refusal.scope}`,
        details: {
          scope: refusal.scope,
          scope_id: refusal.scopeId,
          period: refusal.period,
          limit_micros: refusal.limitMicros,
          spent_micros: refusal.spentMicros,
        },
      });
    const kind = refusal.reason === 'requests_per_minute' ? 'requests' : 'tokens';
    return new WaggleException('too_many_requests', {
      detail: `rate_limit_${kind}_${refusal.scope}`,
      params: { limit: refusal.limit },
      details: { scope: refusal.scope, limit_type: refusal.reason, limit: refusal.limit, retry_after: retryAfterSeconds(decision) ?? 1 },
    });
  }

  /** Admits one request and throws its refusal when it is not allowed. */
  async admit(auth: ResolvedApiKey, call?: MeteredCall): Promise<AdmissionDecision> {
    const decision = await this.count(auth, call);
    if (!decision.allowed) throw this.refusal(decision);
    return decision;
  }

  /**
   * Gives back what an admitted run reserved when it never began (refused or failed before it
   * started): its budget reservation and its token estimate. A failure is logged; the
   * reservation then lapses after GOVERNANCE_RESERVATION_TTL_MS.
   */
  release(workspaceId: string, requestId: string): void {
    this.admission
      .release(workspaceId, requestId)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, request_id: requestId }, 'a reservation could not be released; it lapses after its TTL'),
      );
  }

  private estimate(call: MeteredCall): number {
    return tokenEstimate(call.body, bodyBytesOf(call.contentLength, call.body), this.env.GOVERNANCE_DEFAULT_COMPLETION_TOKENS);
  }

  /**
   * Asks the invocation service to write the workspace's projection: awaited before a run is
   * admitted, in the background after a request that starts none was metered without it (one
   * ask per workspace at a time; after a failure, none for LOAD_RETRY_MS).
   */
  private load(workspaceId: string): Promise<void> {
    const pending = this.loading.get(workspaceId);
    if (pending) return pending;
    const loading = send(this.rpc, GovernancePatterns.loadProjection, { workspace_id: workspaceId })
      .then(() => undefined)
      .finally(() => this.loading.delete(workspaceId));
    this.loading.set(workspaceId, loading);
    return loading;
  }

  /**
   * Loads the workspace's projection before a run is admitted; false when its owner (the
   * invocation service) cannot be asked, or could not be just before (LOAD_RETRY_MS): the run is
   * then admitted on the daily meter alone rather than refused, so runs accepted for later
   * (triggers, background invokes) are not lost while the owner is away. Logged.
   */
  private async loaded(workspaceId: string): Promise<boolean> {
    if (!this.loadFailed.has(workspaceId)) {
      try {
        await this.load(workspaceId);
        return true;
      } catch (error) {
        this.loadFailed.set(workspaceId, true);
        this.logger.warn({ err: error, workspace_id: workspaceId }, 'the usage governance projection could not be loaded');
      }
    }
    this.logger.warn({ workspace_id: workspaceId }, 'a run admitted on the daily meter alone: its budgets and limits could not be loaded');
    return false;
  }

  private loadInBackground(workspaceId: string): void {
    if (this.loadFailed.has(workspaceId)) return;
    this.load(workspaceId).catch((error: unknown) => {
      this.loadFailed.set(workspaceId, true);
      this.logger.warn({ err: error, workspace_id: workspaceId }, 'the usage governance projection could not be loaded');
    });
  }

  private async decide(request: AdmissionRequest): Promise<AdmissionDecision> {
    let decision: AdmissionDecision;
    try {
      decision = await this.admission.admit(request);
      if (decision.unloaded) {
        decision = (await this.loaded(request.workspaceId))
          ? await this.admission.admit(request)
          : await this.admission.admit({ ...request, withoutProjection: true });
        if (decision.unloaded) throw new Error('the governance projection is still missing after loading it');
      } else if (decision.projectionMissing) this.loadInBackground(request.workspaceId);
    } catch (error) {
      this.logger.error({ err: error }, 'the API meter is unavailable');
      waggleMetrics().meterRefusals.add(1, METER_UNAVAILABLE);
      throw new WaggleException('upstream_request_failed', { status: 503, detail: 'metering_unavailable' });
    }
    if (decision.allowed && decision.creditsExhausted) {
      const store = requestContext.get();
      if (store) store.creditsExhausted = true;
    }
    return decision;
  }
}

/** Seconds a refused request should wait (Retry-After), for a refusal that passes with time. */
export function retryAfterSeconds(decision: AdmissionDecision, now = Date.now()): number | undefined {
  const refusal = decision.refusal;
  if (!refusal || refusal.reason === 'daily_limit')
    return decision.allowed ? undefined : Math.ceil((decision.resetsAt.getTime() - now) / 1000);
  if (refusal.reason === 'budget') return undefined;
  return Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
}
