import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { APP_ENV, REDIS_CLIENT } from '@waggle/platform';
import { WebhookTargetKeeper } from '@waggle/webhooks';
import type Redis from 'ioredis';
import type { AgentEnv } from '../config/agent.env';

/**
 * The webhook registry in Redis kept in step with this service's webhook owners (agents):
 * the gateway authenticates agent triggers, and the callback-dispatcher signs their
 * callbacks, from it without asking this service. Rewritten in full at start and every
 * WEBHOOK_REGISTRY_RESYNC_SECONDS.
 */
@Injectable()
export class WebhookTargetsService extends WebhookTargetKeeper implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(@Inject(REDIS_CLIENT) redis: Redis, @Inject(APP_ENV) env: AgentEnv) {
    super(redis, { resyncSeconds: env.WEBHOOK_REGISTRY_RESYNC_SECONDS, logger: new Logger(WebhookTargetsService.name) });
  }

  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  onModuleDestroy(): void {
    this.stop();
  }
}
