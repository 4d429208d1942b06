import { governanceKeyBase, GovernanceKeys, periodKey, type BudgetPeriod, type BudgetScope, type RateLimitScope } from '@waggle/contracts';
import type Redis from 'ioredis';
import { ADMISSION_SCRIPT, RELEASE_SCRIPT } from './admission-script';
import type { Clock } from './clock';

const DAY_MS = 86_400_000;

/** The daily meter's side of a decision: what the `X-RateLimit-*` headers say. */
export interface MeterDecision {
  allowed: boolean;
  /** Requests counted today, this one included when allowed. */
  current: number;
  /** null: no cap. */
  limit: number | null;
  /** The next midnight UTC, when the count starts again. */
  resetsAt: Date;
}

/** Where a requests or tokens per minute limit stands for the tighter of the limited scopes. */
export interface RateWindow {
  limit: number;
  remaining: number;
  /** Until the window is empty again (ms). */
  resetMs: number;
}

export type AdmissionRefusal =
  | { reason: 'daily_limit' }
  | { reason: 'requests_per_minute' | 'tokens_per_minute'; scope: RateLimitScope; scopeId: string; limit: number; retryAfterMs: number }
  | { reason: 'budget'; scope: BudgetScope; scopeId: string | null; period: BudgetPeriod; limitMicros: number; spentMicros: number };

export interface AdmissionDecision extends MeterDecision {
  /** A run-starting request whose projection (or credits balance, with hosted credits) is not in Redis: nothing was counted. */
  unloaded: boolean;
  /** The workspace's projection was not in Redis (a request that starts no run is metered all the same). */
  projectionMissing: boolean;
  refusal?: AdmissionRefusal;
  /** A plan with hosted credits whose balance is ≤ 0 (run-starting requests only). */
  creditsExhausted: boolean;
  requests?: RateWindow;
  tokens?: RateWindow;
}

/** What one request asks of the admission. */
export interface AdmissionRequest {
  workspaceId: string;
  requestId: string;
  /** The API key's id; absent for a webhook trigger. */
  keyId?: string;
  /** The end user (`user` of a run-starting body). */
  user?: string;
  runStarting: boolean;
  /** Counted on the daily meter (every API-key request; webhook triggers are not). */
  metered: boolean;
  /** The plan's `rate_limit_per_day`; null: no cap. */
  dailyLimit: number | null;
  hostedCredits: boolean;
  tokenEstimate: number;
  /**
   * A run admitted although the workspace's projection (and credits balance) is not in Redis and
   * its owner could not load it: counted on the daily meter, no budget, limit or credit applies.
   */
  withoutProjection?: boolean;
}

export interface AdmissionSettings {
  /** What a run reserves in each budgeted scope until the workspace's runs have taught an estimate (micro-USD). */
  defaultReservationMicros: number;
  /** How long a reservation holds when its run's ledger record never ends (ms). */
  reservationTtlMs: number;
}

type Reply = [string, number?, number?, ...Array<number | string>];
type RedisWithAdmission = Redis & {
  admitRequest(projection: string, meter: string, ...args: Array<string | number>): Promise<Reply>;
  releaseReservation(reservation: string, base: string, requestId: string): Promise<number>;
};

export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10).replace(/-/g, '');
}

export function nextUtcMidnight(date: Date): Date {
  return new Date(Math.floor(date.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

function window(limit: unknown, remaining: unknown, resetMs: unknown): RateWindow | undefined {
  return typeof limit === 'number' && limit >= 0 ? { limit, remaining: Number(remaining), resetMs: Number(resetMs) } : undefined;
}

function refusalOf(status: string, reply: Reply): AdmissionRefusal | undefined {
  if (status === 'daily') return { reason: 'daily_limit' };
  const [scope, scopeId, period, limit, spent, retryMs] = reply.slice(10);
  if (status === 'rpm' || status === 'tpm')
    return {
      reason: status === 'rpm' ? 'requests_per_minute' : 'tokens_per_minute',
      scope: scope as RateLimitScope,
      scopeId: String(scopeId),
      limit: Number(limit),
      retryAfterMs: Number(retryMs),
    };
  if (status === 'budget')
    return {
      reason: 'budget',
      scope: scope as BudgetScope,
      scopeId: scope === 'workspace' ? null : String(scopeId),
      period: period as BudgetPeriod,
      limitMicros: Number(limit),
      spentMicros: Number(spent),
    };
  return undefined;
}

/**
 * The admission of every metered request in one Redis round trip (ADMISSION_SCRIPT): the public
 * API's daily meter (one counter per workspace per UTC day) together with usage governance's
 * rate limits, budgets and credits, which the invocation service projects into Redis.
 */
export class GovernanceAdmission {
  private readonly redis: RedisWithAdmission;
  /** The current UTC day's number and its period keys, formatted once a day rather than per request. */
  private day = { number: NaN, text: '', dayKey: '', monthKey: '' };

  constructor(
    redis: Redis,
    private readonly clock: Clock,
    private readonly settings: AdmissionSettings,
    private readonly meterPrefix = 'waggle:meter:api',
  ) {
    if (!('admitRequest' in redis)) {
      redis.defineCommand('admitRequest', { numberOfKeys: 2, lua: ADMISSION_SCRIPT });
      redis.defineCommand('releaseReservation', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    }
    this.redis = redis as RedisWithAdmission;
  }

  /** The daily meter's counter of a workspace for a UTC day (`YYYYMMDD`), in the workspace's hash slot. */
  meterKey(workspaceId: string, day: string): string {
    return `${this.meterPrefix}:{${workspaceId}}:${day}`;
  }

  async admit(request: AdmissionRequest): Promise<AdmissionDecision> {
    const now = this.clock.now();
    const nowMs = now.getTime();
    const resetsAt = nextUtcMidnight(now);
    const dayNumber = Math.floor(nowMs / DAY_MS);
    if (dayNumber !== this.day.number)
      this.day = { number: dayNumber, text: utcDay(now), dayKey: periodKey('day', now), monthKey: periodKey('month', now) };
    const workspaceId = request.workspaceId;
    // Kept a day past its own day, for operators looking at yesterday's count.
    const meterTtlMs = resetsAt.getTime() - nowMs + DAY_MS;
    const reply = await this.redis.admitRequest(
      GovernanceKeys.projection(workspaceId),
      this.meterKey(workspaceId, this.day.text),
      governanceKeyBase(workspaceId),
      request.keyId ?? '',
      request.user ?? '',
      request.runStarting ? (request.withoutProjection ? 2 : 1) : 0,
      request.metered ? 1 : 0,
      request.dailyLimit ?? -1,
      meterTtlMs,
      request.hostedCredits ? 1 : 0,
      nowMs,
      request.tokenEstimate,
      this.settings.defaultReservationMicros,
      this.settings.reservationTtlMs,
      request.requestId,
      this.day.dayKey,
      this.day.monthKey,
    );
    const status = reply[0];
    const limit = request.dailyLimit;
    if (status === 'unloaded')
      return { allowed: false, unloaded: true, projectionMissing: true, current: 0, limit, resetsAt, creditsExhausted: false };
    return {
      allowed: status === 'ok',
      unloaded: false,
      projectionMissing: reply[9] === 0,
      current: Number(reply[1]),
      limit,
      resetsAt,
      creditsExhausted: reply[2] === 1,
      refusal: refusalOf(status, reply),
      requests: window(reply[3], reply[4], reply[5]),
      tokens: window(reply[6], reply[7], reply[8]),
    };
  }

  /** Gives back what an admitted request reserved (its run never began: it was refused or failed first). */
  async release(workspaceId: string, requestId: string): Promise<void> {
    await this.redis.releaseReservation(GovernanceKeys.reservation(workspaceId, requestId), governanceKeyBase(workspaceId), requestId);
  }
}
