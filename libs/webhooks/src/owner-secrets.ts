import type { RegisteredSecret } from './registry';
import { digestWebhookSecret, generateWebhookSecret, matchesWebhookSecret, type SecretSealer } from './secrets';

/** A webhook owner's secrets as its row keeps them: sealed, the previous one only during a rotation's overlap. */
export interface SealedOwnerSecrets {
  current: string;
  previous: string | null;
  previousExpiresAt: Date | null;
}

/** A new owner's secrets: one fresh `whsec_` secret, sealed. */
export function newOwnerSecrets(sealer: SecretSealer): SealedOwnerSecrets {
  return { current: sealer.seal(generateWebhookSecret()), previous: null, previousExpiresAt: null };
}

/**
 * A rotation: a new current secret; the replaced one keeps authenticating triggers and
 * signing callbacks for `overlapSeconds` (none when 0), so callers can switch without
 * losing a delivery.
 */
export function rotateOwnerSecrets(
  sealer: SecretSealer,
  secrets: SealedOwnerSecrets,
  overlapSeconds: number,
  now: Date = new Date(),
): SealedOwnerSecrets {
  const overlap = overlapSeconds > 0;
  return {
    current: sealer.seal(generateWebhookSecret()),
    previous: overlap ? secrets.current : null,
    previousExpiresAt: overlap ? new Date(now.getTime() + overlapSeconds * 1000) : null,
  };
}

/** The end of the overlap while the previous secret is still in force, else null. */
export function previousSecretExpiry(secrets: SealedOwnerSecrets, now: Date = new Date()): Date | null {
  return secrets.previous && secrets.previousExpiresAt && secrets.previousExpiresAt.getTime() > now.getTime()
    ? secrets.previousExpiresAt
    : null;
}

/** The registry form of an owner's secrets in force: the current one first. */
export function registeredSecrets(sealer: SecretSealer, secrets: SealedOwnerSecrets, now: Date = new Date()): RegisteredSecret[] {
  const registered: RegisteredSecret[] = [
    { digest: digestWebhookSecret(sealer.open(secrets.current)), sealed: secrets.current, expires_at: null },
  ];
  const expiresAt = previousSecretExpiry(secrets, now);
  if (secrets.previous && expiresAt) {
    registered.push({
      digest: digestWebhookSecret(sealer.open(secrets.previous)),
      sealed: secrets.previous,
      expires_at: expiresAt.toISOString(),
    });
  }
  return registered;
}

/** Constant-time check of a presented secret against an owner's secrets in force. */
export function ownerAcceptsSecret(sealer: SecretSealer, secrets: SealedOwnerSecrets, presented: string, now: Date = new Date()): boolean {
  return matchesWebhookSecret(
    presented,
    registeredSecrets(sealer, secrets, now).map((secret) => secret.digest),
  );
}
