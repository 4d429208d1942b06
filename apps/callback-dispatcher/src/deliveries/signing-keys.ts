import type { WebhookOwnerKind } from '@waggle/contracts';
import { secretsInForce, type SecretSealer, type WebhookRegistry, type WebhookTarget } from '@waggle/webhooks';

/** How long a registry answer is reused: a rotation reaches the dispatcher within this. */
export const SIGNING_KEYS_TTL_MS = 1_000;

interface CachedTarget {
  fetchedAt: number;
  target: Promise<WebhookTarget | null>;
}

/**
 * The secrets an owner signs with, read from the webhook registry at send time (so a
 * retry after a rotation signs with the secrets then in force). Answers are cached for a
 * second per owner, so a burst of callbacks for one deployment costs one Redis read;
 * opened secrets are cached by their sealed form, so each is decrypted once.
 */
export class SigningKeys {
  private readonly targets = new Map<string, CachedTarget>();
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly registry: WebhookRegistry,
    private readonly sealer: SecretSealer,
    private readonly ttlMs: number = SIGNING_KEYS_TTL_MS,
  ) {}

  /** The plain secrets in force now, the current one first; null when the owner is not registered. */
  async secretsFor(kind: WebhookOwnerKind, id: string, now: Date = new Date()): Promise<string[] | null> {
    const target = await this.target(kind, id, now.getTime());
    if (!target) return null;
    const secrets = secretsInForce(target, now).map((secret) => this.open(secret.sealed));
    return secrets.length > 0 ? secrets : null;
  }

  private target(kind: WebhookOwnerKind, id: string, now: number): Promise<WebhookTarget | null> {
    const key = `${kind}:${id}`;
    const cached = this.targets.get(key);
    if (cached && now - cached.fetchedAt < this.ttlMs) return cached.target;
    const target = this.registry.get(kind, id);
    // A miss or a failed read is not kept: the owner rewrites its targets on start, and
    // the next attempt should see that at once.
    const entry: CachedTarget = { fetchedAt: now, target };
    this.targets.set(key, entry);
    target.then(
      (found) => {
        if (!found && this.targets.get(key) === entry) this.targets.delete(key);
      },
      () => {
        if (this.targets.get(key) === entry) this.targets.delete(key);
      },
    );
    if (this.targets.size > 10_000) this.evictExpired(now);
    return target;
  }

  private open(sealed: string): string {
    let plain = this.opened.get(sealed);
    if (plain === undefined) {
      plain = this.sealer.open(sealed);
      if (this.opened.size > 10_000) this.opened.clear();
      this.opened.set(sealed, plain);
    }
    return plain;
  }

  private evictExpired(now: number): void {
    for (const [key, entry] of this.targets) if (now - entry.fetchedAt >= this.ttlMs) this.targets.delete(key);
  }
}
