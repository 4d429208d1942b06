import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SEALED_VERSION = 'v1';
const SEALED_WITH_KEY_ID = 'v2';

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

/** One key of the ring and its id: the first 8 base64url characters of the key's SHA-256 (says nothing about the key). */
interface SealingKey {
  id: string;
  key: Buffer;
}

function sealingKey(key: Buffer): SealingKey {
  if (key.length !== 32) throw new Error('A webhook secret key must be 32 bytes');
  return { id: createHash('sha256').update(key).digest('base64url').slice(0, 8), key };
}

/** A keyring as WEBHOOK_SECRET_KEY holds it: one base64 key, or several separated by commas, newest first. */
export function parseWebhookSecretKeyring(value: string): Buffer[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => Buffer.from(part, 'base64'));
}

/**
 * Webhook secrets at rest (database rows, Redis) are sealed with AES-256-GCM under the
 * operator's WEBHOOK_SECRET_KEY: only the processes that must sign or show a secret hold
 * the key. WEBHOOK_SECRET_KEY is a keyring, newest first: the first key seals, every key
 * opens, so a key is rotated by putting the new one in front and dropping the old one once
 * nothing is sealed under it any more (`migrate reseal-webhook-secrets`).
 *
 * Sealed forms, each part base64url:
 * - `v2.<key id>.<iv>.<tag>.<ciphertext>`: written while the ring holds more than one key;
 *   it names its key, so a value sealed under a key no longer in the ring fails by name.
 * - `v1.<iv>.<tag>.<ciphertext>`: written while the ring holds one key, so a version before
 *   the keyring (which reads only v1) still opens what this one sealed after an upgrade, and
 *   a rollback keeps working until the first key rotation. It names no key: every key is tried.
 */
export class SecretSealer {
  private readonly ring: SealingKey[];

  /** @param keys  the keyring, newest (sealing) key first; a single key is a ring of one */
  constructor(keys: Buffer | readonly Buffer[]) {
    const ring = (Buffer.isBuffer(keys) ? [keys] : [...keys]).map(sealingKey);
    if (ring.length === 0) throw new Error('A webhook secret keyring needs at least one key');
    this.ring = ring;
  }

  /** From WEBHOOK_SECRET_KEY (base64 of 32 bytes, or such keys comma-separated, newest first); outside production a fixed development key stands in when it is unset. */
  static fromEnv(env: { WEBHOOK_SECRET_KEY?: string; NODE_ENV: string }): SecretSealer {
    if (env.WEBHOOK_SECRET_KEY) return new SecretSealer(parseWebhookSecretKeyring(env.WEBHOOK_SECRET_KEY));
    if (env.NODE_ENV === 'production') throw new Error('WEBHOOK_SECRET_KEY is required in production');
    return new SecretSealer(createHash('sha256').update('waggle development webhook secret key - never use in production').digest());
  }

  /** The id of the key new values are sealed under (the ring's first). */
  get sealingKeyId(): string {
    return this.ring[0].id;
  }

  seal(plain: string): string {
    const { id, key } = this.ring[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')];
    return (this.ring.length > 1 ? [SEALED_WITH_KEY_ID, id, ...parts] : [SEALED_VERSION, ...parts]).join('.');
  }

  /** Throws when the value was sealed under a key not in the ring, or altered. */
  open(sealed: string): string {
    const parts = sealed.split('.');
    if (parts[0] === SEALED_WITH_KEY_ID && parts.length === 5) {
      const [, keyId, iv, tag, ciphertext] = parts;
      const sealing = this.ring.find((candidate) => candidate.id === keyId);
      if (!sealing)
        throw new Error(
          `The webhook secret was sealed under key ${keyId}, which is not in WEBHOOK_SECRET_KEY (keys: ${this.ring.map((k) => k.id).join(', ')})`,
        );
      return decrypt(sealing.key, iv, tag, ciphertext);
    }
    if (parts[0] === SEALED_VERSION && parts.length === 4 && parts[1] && parts[2]) {
      const [, iv, tag, ciphertext] = parts;
      for (const { key } of this.ring) {
        try {
          return decrypt(key, iv, tag, ciphertext);
        } catch {
          // Not this key (or altered): try the next one.
        }
      }
      throw new Error(
        `The webhook secret opens under none of the ${this.ring.length} key(s) of WEBHOOK_SECRET_KEY (sealed under a key no longer in the ring, or altered)`,
      );
    }
    throw new Error('Not a sealed webhook secret');
  }

  /**
   * The value sealed again as `seal` would seal it now, or null when it already is: a v2 value
   * naming the sealing key while the ring has several keys, a v1 value (that opens) while it has
   * one. What a re-seal after a key rotation writes back; run again once the old keys are gone,
   * it turns v2 values back into v1, which versions before the keyring read.
   */
  reseal(sealed: string): string | null {
    const [version, keyId] = sealed.split('.');
    if (this.ring.length > 1 && version === SEALED_WITH_KEY_ID && keyId === this.sealingKeyId) return null;
    const plain = this.open(sealed);
    if (this.ring.length === 1 && version === SEALED_VERSION) return null;
    return this.seal(plain);
  }
}

function decrypt(key: Buffer, iv: string, tag: string, ciphertext: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
