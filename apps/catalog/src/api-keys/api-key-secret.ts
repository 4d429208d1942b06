import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX_LENGTH } from '@waggle/contracts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `wgl_` + 40 uniformly random base62 characters (about 238 bits). */
export function generateApiKey(): string {
  let secret = '';
  for (let index = 0; index < 40; index += 1) secret += BASE62[randomInt(BASE62.length)];
  return `wgl_${secret}`;
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Compares two hex digests in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
