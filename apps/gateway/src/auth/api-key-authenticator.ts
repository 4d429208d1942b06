import { Injectable } from '@nestjs/common';
import { API_KEY_PATTERN, API_KEY_PREFIX_LENGTH, CatalogPatterns, send, type ResolvedApiKey } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';

/**
 * How long a replica trusts what the catalog said about a key. A revoked key is refused
 * everywhere within this time (the contract is 5 s).
 */
export const API_KEY_CACHE_TTL_MS = 4_000;
const MAX_CACHED_KEYS = 10_000;

interface CacheEntry {
  resolved: Promise<ResolvedApiKey>;
  expiresAt: number;
}

/**
 * Turns an `Authorization` header into the key's workspace. Valid keys are cached by
 * their SHA-256 for a few seconds, so the hot path is a hash and a map lookup; the key
 * itself never leaves the gateway, and the catalog compares hashes in constant time.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly cache = new LRUCache<string, CacheEntry>({ max: MAX_CACHED_KEYS });

  constructor(private readonly rpc: NatsRpcClient) {}

  authenticate(authorization: string | undefined): Promise<ResolvedApiKey> {
    if (authorization === undefined) return Promise.reject(new WaggleException('unauthorized'));
    const match = /^Bearer ([^\s]+)$/i.exec(authorization.trim());
    // The shape is checked before anything is looked up: wrong schemes, empty bearers and
    // injection attempts never reach the catalog.
    if (!match || !API_KEY_PATTERN.test(match[1])) return Promise.reject(new WaggleException('invalid_api_key'));
    const key = match[1];
    const hash = createHash('sha256').update(key).digest('hex');
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.resolved;

    const resolved = send(this.rpc, CatalogPatterns.resolveApiKey, { prefix: key.slice(0, API_KEY_PREFIX_LENGTH), key_hash: hash });
    this.cache.set(hash, { resolved, expiresAt: now + API_KEY_CACHE_TTL_MS });
    // Only answers are cached; a failed lookup is asked again next time.
    resolved.catch(() => this.cache.delete(hash));
    return resolved;
  }
}
