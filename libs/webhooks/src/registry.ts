import type { WebhookOwnerKind } from '@waggle/contracts';
import type Redis from 'ioredis';
import { matchesWebhookSecret } from './secrets';

export interface RegisteredSecret {
  /** SHA-256 of the secret: what the gateway compares a presented secret with. */
  digest: string;
  /** The secret sealed under WEBHOOK_SECRET_KEY: what the dispatcher signs with. */
  sealed: string;
  /** null for the current secret; the end of the overlap for a rotated-out one. */
  expires_at: string | null;
}

/** The version a prompt webhook trigger runs, and the variables it must be given. */
export interface RegisteredPromptVariant {
  name: string;
  version_id: string;
  variables: string[];
}

/**
 * What the edge needs to accept a trigger, and the dispatcher to sign its callback,
 * without asking the owning service: the owner service writes it whenever it changes.
 */
export interface WebhookTarget {
  kind: WebhookOwnerKind;
  id: string;
  workspace_id: string;
  /** The current secret first. */
  secrets: RegisteredSecret[];
  /** Prompt deployments only: variant id → what a trigger of that variant runs. */
  variants?: Record<string, RegisteredPromptVariant>;
}

/** The secrets a target accepts and signs with at `now`. */
export function secretsInForce(target: WebhookTarget, now: Date = new Date()): RegisteredSecret[] {
  return target.secrets.filter((secret) => secret.expires_at === null || Date.parse(secret.expires_at) > now.getTime());
}

/** Constant-time check of a presented secret against every secret in force. */
export function acceptsSecret(target: WebhookTarget, presented: string, now: Date = new Date()): boolean {
  return matchesWebhookSecret(
    presented,
    secretsInForce(target, now).map((secret) => secret.digest),
  );
}

const KEY_PREFIX = 'waggle:webhook-targets';

/**
 * Webhook targets in Redis, readable by the gateway and the dispatcher while the owning
 * service is down: triggers are accepted and callbacks signed without it. The owner is
 * the only writer; it rewrites every target it owns when it starts, so a flushed Redis
 * heals on the owner's next start or periodic resync.
 */
export class WebhookRegistry {
  constructor(private readonly redis: Redis) {}

  static key(kind: WebhookOwnerKind, id: string): string {
    return `${KEY_PREFIX}:${kind}:${id}`;
  }

  async put(...targets: WebhookTarget[]): Promise<void> {
    if (targets.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const target of targets) pipeline.set(WebhookRegistry.key(target.kind, target.id), JSON.stringify(target));
    const results = (await pipeline.exec()) ?? [];
    const failure = results.find(([error]) => error);
    if (failure?.[0]) throw failure[0];
  }

  async get(kind: WebhookOwnerKind, id: string): Promise<WebhookTarget | null> {
    const raw = await this.redis.get(WebhookRegistry.key(kind, id));
    return raw ? (JSON.parse(raw) as WebhookTarget) : null;
  }

  async remove(kind: WebhookOwnerKind, id: string): Promise<void> {
    await this.redis.del(WebhookRegistry.key(kind, id));
  }
}
