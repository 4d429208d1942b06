import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { WebhookOwnerKind } from '@waggle/contracts';
import { APP_ENV, REDIS_CLIENT } from '@waggle/platform';
import { WebhookRegistry, type WebhookTarget } from '@waggle/webhooks';
import type Redis from 'ioredis';
import type { InvocationEnv } from '../config/invocation.env';

const RESYNC_PAGE = 500;

/** A kind of webhook owner this service keeps (prompt deployments now, workflow deployments next). */
export interface WebhookTargetSource {
  readonly kind: WebhookOwnerKind;
  /** The current targets of these owners; unknown ids are left out. */
  targets(ids: string[]): Promise<WebhookTarget[]>;
  /** One page of every owner's id, in a stable order. */
  idsPage(skip: number, take: number): Promise<string[]>;
}

/**
 * Keeps the webhook registry in Redis (where the gateway authenticates triggers and the
 * callback-dispatcher finds signing secrets) in step with this service's owners: written on
 * every change, rewritten in full at start and every WEBHOOK_REGISTRY_RESYNC_SECONDS, and
 * rewritten for one owner on request when the registry lost it.
 */
@Injectable()
export class WebhookTargetsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookTargetsService.name);
  private readonly registry: WebhookRegistry;
  private readonly sources = new Map<WebhookOwnerKind, WebhookTargetSource>();
  private resyncTimer?: NodeJS.Timeout;

  constructor(
    @Inject(REDIS_CLIENT) redis: Redis,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {
    this.registry = new WebhookRegistry(redis);
  }

  /** Called by each owner feature when its module starts. */
  register(source: WebhookTargetSource): void {
    this.sources.set(source.kind, source);
  }

  async onApplicationBootstrap(): Promise<void> {
    // Redis may have lost the registry (a flush, a new instance): every start rewrites it.
    await this.publishAll().catch((error: unknown) => this.logger.error({ err: error }, 'webhook registry resync failed'));
    if (this.env.WEBHOOK_REGISTRY_RESYNC_SECONDS > 0) {
      this.resyncTimer = setInterval(() => {
        this.publishAll().catch((error: unknown) => this.logger.warn({ err: error }, 'webhook registry resync failed'));
      }, this.env.WEBHOOK_REGISTRY_RESYNC_SECONDS * 1000);
      this.resyncTimer.unref();
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.resyncTimer);
  }

  /** Rewrites these owners' registry entries from the database; answers how many exist. */
  async publish(kind: WebhookOwnerKind, ids: string[]): Promise<number> {
    const source = this.sources.get(kind);
    if (!source || ids.length === 0) return 0;
    const targets = await source.targets(ids);
    await this.registry.put(...targets);
    return targets.length;
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
