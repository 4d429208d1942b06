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
  private lastResync?: Promise<void>;
  /** Every (re)connection rewrites the registry: a restarted Redis may have lost it. */
  private readonly resyncOnReady = () => {
    this.lastResync = this.resync('error');
  };

  constructor(
    private readonly redis: Redis,
    private readonly options: WebhookTargetKeeperOptions,
  ) {
    this.registry = new WebhookRegistry(redis);
  }

  /** Called by each owner feature when its module starts. */
  register(source: WebhookTargetSource): void {
    this.sources.set(source.kind, source);
  }

  /**
   * Rewrites the whole registry once Redis is connected (it may have lost it), waiting for the
   * connection up to `startWaitMs` so that a replica that answers has written its targets;
   * then again on every reconnection and every `resyncSeconds`. A client that refuses
   * commands while offline would otherwise fail the first rewrite of a fresh process.
   */
  async start(startWaitMs = 5_000): Promise<void> {
    this.redis.on('ready', this.resyncOnReady);
    if (this.redis.status === 'ready') this.resyncOnReady();
    else await this.firstConnection(startWaitMs);
    await this.lastResync;
    if (this.options.resyncSeconds > 0) {
      this.resyncTimer = setInterval(() => void this.resync('warn'), this.options.resyncSeconds * 1000);
      this.resyncTimer.unref();
    }
  }

  stop(): void {
    this.redis.off('ready', this.resyncOnReady);
    clearInterval(this.resyncTimer);
  }

  /** Nest calls it once every module has started (so every owner feature has registered its source). */
  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  onModuleDestroy(): void {
    this.stop();
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

  private async resync(level: 'error' | 'warn'): Promise<void> {
    await this.publishAll().catch((error: unknown) => this.options.logger[level]({ err: error }, 'webhook registry resync failed'));
  }

  /** Resolves at the first connection (whose 'ready' listener has started the rewrite), or after `waitMs`. */
  private firstConnection(waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      timer.unref();
      this.redis.once('ready', done);
    });
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
