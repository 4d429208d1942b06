import { randomBytes } from 'node:crypto';
import { acceptsSecret, secretsInForce, type WebhookTarget } from './registry';
import { digestWebhookSecret, generateWebhookSecret, matchesWebhookSecret, SecretSealer } from './secrets';

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
