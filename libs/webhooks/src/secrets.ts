import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SEALED_VERSION = 'v1';

/** decisions: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * What the gateway keeps to authenticate a trigger: the SHA-256 of the secret. A secret
 * is 256 random bits, so its digest needs no salt or slow hash to be safe to store.
 */
export function digestWebhookSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * True when `presented` is one of the secrets behind `digests`. Every digest is compared,
 * each in constant time, so the answer's timing says nothing about which one matched.
 */
export function matchesWebhookSecret(presented: string, digests: readonly string[]): boolean {
  const candidate = createHash('sha256').update(presented, 'utf8').digest();
  let matched = false;
  for (const digest of digests) {
    const stored = Buffer.from(digest, 'hex');
    if (stored.length === candidate.length && timingSafeEqual(stored, candidate)) matched = true;
  }
  return matched;
}

/** The HMAC key of the Standard Webhooks signature: the bytes after `whsec_`. */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/**
 * Webhook secrets at rest (database rows, Redis) are sealed with AES-256-GCM under the
 * operator's WEBHOOK_SECRET_KEY: only the processes that must sign or show a secret hold
 * the key. Sealed form: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export class SecretSealer {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('A webhook secret key must be 32 bytes');
    this.key = key;
  }

  /** From WEBHOOK_SECRET_KEY (base64 of 32 bytes); outside production a fixed development key stands in when it is unset. */
  static fromEnv(env: { WEBHOOK_SECRET_KEY?: string; NODE_ENV: string }): SecretSealer {
    if (env.WEBHOOK_SECRET_KEY) return new SecretSealer(Buffer.from(env.WEBHOOK_SECRET_KEY, 'base64'));
    if (env.NODE_ENV === 'production') throw new Error('WEBHOOK_SECRET_KEY is required in production');
    return new SecretSealer(createHash('sha256').update('waggle development webhook secret key - never use in production').digest());
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [SEALED_VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  /** Throws when the value was sealed under another key or altered. */
  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== SEALED_VERSION || !iv || !tag || ciphertext === undefined) throw new Error('Not a sealed webhook secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
