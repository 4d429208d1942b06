import { randomBytes } from 'node:crypto';
import { acceptsSecret, secretsInForce, type WebhookTarget } from './registry';
import { digestWebhookSecret, generateWebhookSecret, matchesWebhookSecret, parseWebhookSecretKeyring, SecretSealer } from './secrets';

describe('webhook secrets', () => {
  it('have the decisions format: whsec_ + base64 of 32 bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('match their digest and nothing else', () => {
    const secret = generateWebhookSecret();
    const digests = [digestWebhookSecret(generateWebhookSecret()), digestWebhookSecret(secret)];
    expect(matchesWebhookSecret(secret, digests)).toBe(true);
    expect(matchesWebhookSecret(`${secret}x`, digests)).toBe(false);
    expect(matchesWebhookSecret('', digests)).toBe(false);
    expect(matchesWebhookSecret(secret, [])).toBe(false);
  });
});

describe('SecretSealer', () => {
  const sealer = new SecretSealer(randomBytes(32));

  it('round-trips a secret without storing it in the clear', () => {
    const secret = generateWebhookSecret();
    const sealed = sealer.seal(secret);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(sealed).not.toBe(sealer.seal(secret));
    expect(sealer.open(sealed)).toBe(secret);
  });

  it('refuses a value sealed under another key or altered', () => {
    const sealed = sealer.seal(generateWebhookSecret());
    expect(() => new SecretSealer(randomBytes(32)).open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => sealer.open(parts.join('.'))).toThrow();
    expect(() => sealer.open('whsec_plain')).toThrow();
  });

  it('requires WEBHOOK_SECRET_KEY in production and uses it when set', () => {
    expect(() => SecretSealer.fromEnv({ NODE_ENV: 'production' })).toThrow(/WEBHOOK_SECRET_KEY/);
    const key = randomBytes(32).toString('base64');
    const sealed = SecretSealer.fromEnv({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key }).seal('x');
    expect(new SecretSealer(Buffer.from(key, 'base64')).open(sealed)).toBe('x');
    // Development processes agree on the fixed key, so a laptop needs no setup.
    expect(SecretSealer.fromEnv({ NODE_ENV: 'development' }).open(SecretSealer.fromEnv({ NODE_ENV: 'test' }).seal('y'))).toBe('y');
  });
});

describe('SecretSealer keyring (WEBHOOK_SECRET_KEY newest first)', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const ring = (...keys: Buffer[]) => keys.map((key) => key.toString('base64')).join(',');

  it('opens a value sealed under the old key after the rotation puts a new key first', () => {
    const sealedBefore = SecretSealer.fromEnv({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: ring(oldKey) }).seal('before');
    // One key: the v1 form every earlier version reads, so a rollback still opens it.
    expect(sealedBefore).toMatch(/^v1\./);
    const rotated = SecretSealer.fromEnv({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: ring(newKey, oldKey) });
    expect(rotated.open(sealedBefore)).toBe('before');
  });

  it('seals new values under the first key, naming it', () => {
    const rotated = new SecretSealer([newKey, oldKey]);
    const sealed = rotated.seal('after');
    expect(sealed.split('.')).toHaveLength(5);
    expect(sealed.split('.').slice(0, 2)).toEqual(['v2', rotated.sealingKeyId]);
    expect(new SecretSealer(newKey).open(sealed)).toBe('after');
    expect(() => new SecretSealer(oldKey).open(sealed)).toThrow(
      `sealed under key ${rotated.sealingKeyId}, which is not in WEBHOOK_SECRET_KEY`,
    );
  });

  it('fails clearly on a value sealed by a key no longer in the ring', () => {
    const dropped = randomBytes(32);
    const v1 = new SecretSealer(dropped).seal('gone');
    const v2 = new SecretSealer([dropped, oldKey]).seal('gone');
    const current = new SecretSealer([newKey, oldKey]);
    expect(() => current.open(v1)).toThrow('opens under none of the 2 key(s) of WEBHOOK_SECRET_KEY');
    expect(() => current.open(v2)).toThrow(/^The webhook secret was sealed under key [\w-]{8}, which is not in WEBHOOK_SECRET_KEY/);
  });

  it('re-seals only what is not yet under the sealing key', () => {
    const rotated = new SecretSealer([newKey, oldKey]);
    const underOld = new SecretSealer(oldKey).seal('x');
    const resealed = rotated.reseal(underOld);
    expect(resealed).toMatch(new RegExp(`^v2\\.${rotated.sealingKeyId}\\.`));
    expect(rotated.reseal(resealed as string)).toBeNull();
    // After the old key is dropped, the re-sealed value still opens.
    expect(new SecretSealer(newKey).open(resealed as string)).toBe('x');
    expect(new SecretSealer(newKey).reseal(new SecretSealer(newKey).seal('y'))).toBeNull();
    // With the old key gone, a second re-seal writes the v1 form a version before the keyring reads.
    const back = new SecretSealer(newKey).reseal(resealed as string);
    expect(back).toMatch(/^v1\./);
    expect(new SecretSealer(newKey).open(back as string)).toBe('x');
    expect(() => new SecretSealer(newKey).reseal(underOld)).toThrow('opens under none');
  });

  it('parses the ring with spaces around the commas, newest first', () => {
    expect(parseWebhookSecretKeyring(`${newKey.toString('base64')} , ${oldKey.toString('base64')}`)).toEqual([newKey, oldKey]);
    expect(() => new SecretSealer([])).toThrow('at least one key');
    expect(() => new SecretSealer([newKey, randomBytes(16)])).toThrow('32 bytes');
  });
});

describe('secrets in force', () => {
  const current = generateWebhookSecret();
  const previous = generateWebhookSecret();
  const now = new Date('2026-11-22T12:00:00Z');
  const target = (expiresAt: string): WebhookTarget => ({
    kind: 'prompt_deployment',
    id: '00000000-0000-4000-8000-000000000001',
    workspace_id: '00000000-0000-4000-8000-000000000002',
    secrets: [
      { digest: digestWebhookSecret(current), sealed: 'x', expires_at: null },
      { digest: digestWebhookSecret(previous), sealed: 'y', expires_at: expiresAt },
    ],
  });

  it('include a rotated-out secret until its overlap ends', () => {
    expect(secretsInForce(target('2026-11-22T13:00:00Z'), now)).toHaveLength(2);
    expect(acceptsSecret(target('2026-11-22T13:00:00Z'), previous, now)).toBe(true);
    expect(secretsInForce(target('2026-11-22T11:59:59Z'), now)).toHaveLength(1);
    expect(acceptsSecret(target('2026-11-22T11:59:59Z'), previous, now)).toBe(false);
    expect(acceptsSecret(target('2026-11-22T11:59:59Z'), current, now)).toBe(true);
  });
});
