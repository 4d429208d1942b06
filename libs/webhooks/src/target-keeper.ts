import type { WebhookOwnerKind } from '@waggle/contracts';
import type Redis from 'ioredis';
import { WebhookRegistry, type WebhookTarget } from './registry';

const RESYNC_PAGE = 500;

/** One kind of webhook owner a service keeps (its prompt deployments, agents, workflow deployments). */
export interface WebhookTargetSource {
  readonly kind: WebhookOwnerKind;
  /** The current targets of these owners; unknown (and deleted) ids are left out. */
  targets(ids: string[]): Promise<WebhookTarget[]>;
  /** One page of every live owner's id, in a stable order. */
  idsPage(skip: number, take: number): Promise<string[]>;
}

export interface WebhookTargetKeeperOptions {
  /** How often every target is rewritten (seconds); 0 = only at start and on change. */
  resyncSeconds: number;
  logger: { error(message: unknown, ...rest: unknown[]): void; warn(message: unknown, ...rest: unknown[]): void };
}

/**
 * Keeps the webhook registry in Redis (where the gateway authenticates triggers and the
 * callback-dispatcher finds signing secrets) in step with one service's owners: written on
 * every change, removed on deletion, rewritten in full at start and every `resyncSeconds`,
 * and rewritten for one owner on request when the registry lost it. The owning service is
 * the registry's only writer for its kinds.
 */
export class WebhookTargetKeeper {
  private readonly registry: WebhookRegistry;
  private readonly sources = new Map<WebhookOwnerKind, WebhookTargetSource>();
  private resyncTimer?: NodeJS.Timeout;

  constructor(
    redis: Redis,
    private readonly options: WebhookTargetKeeperOptions,
  ) {
    this.registry = new WebhookRegistry(redis);
  }

  /** Called by each owner feature when its module starts. */
  register(source: WebhookTargetSource): void {
    this.sources.set(source.kind, source);
  }

  /** Rewrites the whole registry now (Redis may have lost it) and then every `resyncSeconds`. */
  async start(): Promise<void> {
    await this.publishAll().catch((error: unknown) => this.options.logger.error({ err: error }, 'webhook registry resync failed'));
    if (this.options.resyncSeconds > 0) {
      this.resyncTimer = setInterval(() => {
        this.publishAll().catch((error: unknown) => this.options.logger.warn({ err: error }, 'webhook registry resync failed'));
      }, this.options.resyncSeconds * 1000);
      this.resyncTimer.unref();
    }
  }

  stop(): void {
    clearInterval(this.resyncTimer);
  }

  /** Rewrites these owners' entries from their source; answers how many exist. */
  async publish(kind: WebhookOwnerKind, ids: string[]): Promise<number> {
    const source = this.sources.get(kind);
    if (!source || ids.length === 0) return 0;
    const targets = await source.targets(ids);
    await this.registry.put(...targets);
    return targets.length;
  }

  /** Takes a deleted owner's entry out: its triggers answer "not found" from then on. */
  remove(kind: WebhookOwnerKind, id: string): Promise<void> {
    return this.registry.remove(kind, id);
  }

  /** Rewrites one owner's entry, whatever its kind; false when no source knows it. */
  async republish(id: string): Promise<boolean> {
    for (const kind of this.sources.keys()) if ((await this.publish(kind, [id])) > 0) return true;
    return false;
  }

  async publishAll(): Promise<number> {
    let published = 0;
    for (const source of this.sources.values()) {
      for (let skip = 0; ; skip += RESYNC_PAGE) {
        const ids = await source.idsPage(skip, RESYNC_PAGE);
        if (ids.length === 0) break;
        published += await this.publish(source.kind, ids);
      }
    }
    return published;
  }
}
