import { Module } from '@nestjs/common';
import { APP_ENV, REDIS_CLIENT } from '@waggle/platform';
import { SecretSealer, WebhookTargetKeeper, webhookOwnerProviders } from '@waggle/webhooks';
import { WebhooksController } from './webhooks.controller';

/**
 * The webhook registry side of this service's webhook owners (the shared keeper), and the
 * sealer of their secrets (WEBHOOK_SECRET_KEY). Each owner feature registers a WebhookTargetSource.
 */
@Module({
  controllers: [WebhooksController],
  providers: webhookOwnerProviders({ redis: REDIS_CLIENT, env: APP_ENV }),
  exports: [WebhookTargetKeeper, SecretSealer],
})
export class WebhooksModule {}
