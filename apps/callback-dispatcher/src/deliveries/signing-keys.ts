import type { WebhookOwnerKind } from '@waggle/contracts';
import { secretsInForce, type SecretSealer, type WebhookRegistry, type WebhookTarget } from '@waggle/webhooks';

/**
 * The secrets an owner signs with, read from the webhook registry at send time, so a
 * callback sent right after a rotation (or a retry after one) is signed with the secrets then
 * in force. Sends that overlap share one Redis read per owner; nothing is kept after it, since
 * an overlap-0 rotation must stop the old secret at once. Opened secrets are cached by their
 * sealed form, so each is decrypted once.
 */
export class SigningKeys {
  private readonly reading = new Map<string, Promise<WebhookTarget | null>>();
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly registry: WebhookRegistry,
    private readonly sealer: SecretSealer,
  ) {}

  /** The plain secrets in force now, the current one first; null when the owner is not registered. */
  async secretsFor(kind: WebhookOwnerKind, id: string, now: Date = new Date()): Promise<string[] | null> {
    const target = await this.target(kind, id);
    if (!target) return null;
    const secrets = secretsInForce(target, now).map((secret) => this.open(secret.sealed));
    return secrets.length > 0 ? secrets : null;
  }

  private target(kind: WebhookOwnerKind, id: string): Promise<WebhookTarget | null> {
    const key = `${kind}:${id}`;
    const inFlight = this.reading.get(key);
    if (inFlight) return inFlight;
    const target = this.registry.get(kind, id).finally(() => this.reading.delete(key));
    this.reading.set(key, target);
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
}
