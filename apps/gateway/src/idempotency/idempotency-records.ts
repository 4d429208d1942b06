import { SecretSealer } from '@waggle/webhooks';
import { createHash, hkdfSync } from 'node:crypto';
import type Redis from 'ioredis';

/** How long a finished request's answer is kept for repeats (decisions: 24 h). */
export const IDEMPOTENCY_RECORD_TTL_MS = 24 * 3600_000;

/**
 * What the guard leaves on a request that claimed its key, for the SSE relay: a stream's events
 * are kept as long as the key (IDEMPOTENCY_RECORD_TTL_MS), and the relay says when the stream it
 * answered with has ended, so the answer is kept before `[DONE]` goes out.
 */
export interface IdempotencyClaim {
  streamEnded(): Promise<void>;
}

const CLAIM = Symbol('waggle:idempotency-claim');

export function idempotencyClaimOf(request: object): IdempotencyClaim | undefined {
  return (request as { [CLAIM]?: IdempotencyClaim })[CLAIM];
}

export function attachIdempotencyClaim(request: object, claim: IdempotencyClaim): void {
  (request as { [CLAIM]?: IdempotencyClaim })[CLAIM] = claim;
}

/** A kept answer: a JSON body, or a stream whose events the run's event log holds. */
export type KeptAnswer = { kind: 'json'; status: number; body: string } | { kind: 'stream'; status: number };

/** What a key's record says when a request presents it. */
export type KeyState =
  | { state: 'claimed' }
  | { state: 'running'; fingerprint: string; requestId: string }
  | { state: 'done'; fingerprint: string; requestId: string; answer: KeptAnswer };

/** The record as stored: the answer's body sealed under a key only the Idempotency-Key opens. */
interface StoredRecord {
  s: 'running' | 'done';
  /** SHA-256 of the request (route and canonical body). */
  f: string;
  r: string;
  k?: 'json' | 'stream';
  st?: number;
  /** The sealed body (json answers). */
  b?: string;
}

/** SET NX, else the record there: one round trip decides who runs. */
const CLAIM_SCRIPT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('GET', KEYS[1])`;

/** Writes (or, with an empty value, deletes) the record only while it is still this request's claim. */
const SETTLE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current or cjson.decode(current)['r'] ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1`;

type IdempotencyRedis = Redis & {
  claimIdempotencyKey(key: string, value: string, leaseMs: number): Promise<string | null>;
  settleIdempotencyKey(key: string, requestId: string, value: string, ttlMs: number): Promise<number>;
};

/**
 * One workspace's use of one Idempotency-Key. The Redis key is the SHA-256 of workspace and
 * key, and a kept answer is sealed (AES-256-GCM) under a key derived from the Idempotency-Key:
 * whoever reads Redis sees neither the keys nor the answers (an async workflow's carries its
 * webhook secret), and only a client presenting the key gets the answer back.
 */
export class IdempotencyKeyRecord {
  private readonly redisKey: string;
  private readonly sealer: SecretSealer;

  constructor(
    private readonly redis: Redis,
    workspaceId: string,
    idempotencyKey: string,
    private readonly fingerprint: string,
    private readonly requestId: string,
  ) {
    this.redisKey = `waggle:idempotency:${createHash('sha256').update(`${workspaceId}\n${idempotencyKey}`).digest('hex')}`;
    this.sealer = new SecretSealer(Buffer.from(hkdfSync('sha256', idempotencyKey, workspaceId, 'waggle idempotency answer', 32)));
    const client = redis as IdempotencyRedis;
    if (!('claimIdempotencyKey' in client)) {
      redis.defineCommand('claimIdempotencyKey', { numberOfKeys: 1, lua: CLAIM_SCRIPT });
      redis.defineCommand('settleIdempotencyKey', { numberOfKeys: 1, lua: SETTLE_SCRIPT });
    }
  }

  /**
   * Claims the key for this request for `leaseMs` (the longest a run may keep its caller
   * waiting), or answers what the key's record holds.
   */
  async claim(leaseMs: number): Promise<KeyState> {
    const running: StoredRecord = { s: 'running', f: this.fingerprint, r: this.requestId };
    const existing = await (this.redis as IdempotencyRedis).claimIdempotencyKey(this.redisKey, JSON.stringify(running), leaseMs);
    if (existing === null) return { state: 'claimed' };
    const record = JSON.parse(existing) as StoredRecord;
    if (record.s === 'running') return { state: 'running', fingerprint: record.f, requestId: record.r };
    const answer: KeptAnswer =
      record.k === 'stream'
        ? { kind: 'stream', status: record.st ?? 200 }
        : { kind: 'json', status: record.st ?? 200, body: this.sealer.open(record.b ?? '') };
    return { state: 'done', fingerprint: record.f, requestId: record.r, answer };
  }

  /** Keeps the answer for 24 h, for every repeat to get. */
  async keep(answer: KeptAnswer): Promise<void> {
    const record: StoredRecord = {
      s: 'done',
      f: this.fingerprint,
      r: this.requestId,
      k: answer.kind,
      st: answer.status,
      ...(answer.kind === 'json' && { b: this.sealer.seal(answer.body) }),
    };
    await (this.redis as IdempotencyRedis).settleIdempotencyKey(
      this.redisKey,
      this.requestId,
      JSON.stringify(record),
      IDEMPOTENCY_RECORD_TTL_MS,
    );
  }

  /** Frees the key: the request was refused before a run started, so a corrected retry may use it. */
  async release(): Promise<void> {
    await (this.redis as IdempotencyRedis).settleIdempotencyKey(this.redisKey, this.requestId, '', 0);
  }
}
