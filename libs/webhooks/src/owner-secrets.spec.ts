import { randomBytes } from 'node:crypto';
import { newOwnerSecrets, ownerAcceptsSecret, previousSecretExpiry, registeredSecrets, rotateOwnerSecrets } from './owner-secrets';
import { digestWebhookSecret, SecretSealer } from './secrets';

describe("a webhook owner's secrets", () => {
  const sealer = new SecretSealer(randomBytes(32));
  const now = new Date('2030-01-01T00:00:00Z');
  const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);

  it('start with one sealed whsec_ secret, in force alone', () => {
    const secrets = newOwnerSecrets(sealer);
    const plain = sealer.open(secrets.current);
    expect(plain).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secrets.current).not.toContain(plain);
    expect(registeredSecrets(sealer, secrets, now)).toEqual([
      { digest: digestWebhookSecret(plain), sealed: secrets.current, expires_at: null },
    ]);
    expect(ownerAcceptsSecret(sealer, secrets, plain, now)).toBe(true);
    expect(ownerAcceptsSecret(sealer, secrets, `${plain}x`, now)).toBe(false);
  });

  it('keep the replaced secret in force for the overlap of a rotation, and only then', () => {
    const before = newOwnerSecrets(sealer);
    const rotated = rotateOwnerSecrets(sealer, before, 60, now);
    const [oldSecret, newSecret] = [sealer.open(before.current), sealer.open(rotated.current)];
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.previous).toBe(before.current);
    expect(previousSecretExpiry(rotated, now)).toEqual(later(60));
    expect(registeredSecrets(sealer, rotated, now).map((secret) => secret.expires_at)).toEqual([null, later(60).toISOString()]);
    for (const secret of [oldSecret, newSecret]) expect(ownerAcceptsSecret(sealer, rotated, secret, later(59))).toBe(true);
    expect(ownerAcceptsSecret(sealer, rotated, oldSecret, later(60))).toBe(false);
    expect(ownerAcceptsSecret(sealer, rotated, newSecret, later(60))).toBe(true);
    expect(previousSecretExpiry(rotated, later(60))).toBeNull();
  });

  it('drop the replaced secret at once when the rotation has no overlap', () => {
    const before = newOwnerSecrets(sealer);
    const rotated = rotateOwnerSecrets(sealer, before, 0, now);
    expect(rotated).toEqual({ current: expect.any(String), previous: null, previousExpiresAt: null });
    expect(ownerAcceptsSecret(sealer, rotated, sealer.open(before.current), now)).toBe(false);
  });
});
