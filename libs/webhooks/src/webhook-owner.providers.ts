import { Logger, type InjectionToken, type Provider } from '@nestjs/common';
import type Redis from 'ioredis';
import { SecretSealer } from './secrets';
import { WebhookTargetKeeper } from './target-keeper';

/** What a service that owns webhook targets configures: its keyring and how often the registry is rewritten. */
export interface WebhookOwnerEnv {
  WEBHOOK_SECRET_KEY?: string;
  WEBHOOK_REGISTRY_RESYNC_SECONDS: number;
  NODE_ENV: string;
}

/**
 * The providers of a service that owns webhook targets (agent, invocation): the keeper of its
 * registry entries (started with the application, stopped with it) and the sealer of its
 * owners' secrets (WEBHOOK_SECRET_KEY). `tokens` name the service's Redis client and env.
 */
export function webhookOwnerProviders(tokens: { redis: InjectionToken; env: InjectionToken }): Provider[] {
  return [
    {
      provide: WebhookTargetKeeper,
      useFactory: (redis: Redis, env: WebhookOwnerEnv) =>
        new WebhookTargetKeeper(redis, {
          resyncSeconds: env.WEBHOOK_REGISTRY_RESYNC_SECONDS,
          logger: new Logger(WebhookTargetKeeper.name),
        }),
      inject: [tokens.redis, tokens.env],
    },
    { provide: SecretSealer, useFactory: (env: WebhookOwnerEnv) => SecretSealer.fromEnv(env), inject: [tokens.env] },
  ];
}
