import { Module } from '@nestjs/common';
import { APP_ENV } from '@waggle/platform';
import { SecretSealer } from '@waggle/webhooks';
import type { AgentEnv } from '../config/agent.env';
import { WebhooksController } from './webhooks.controller';
import { WebhookTargetsService } from './webhook-targets.service';

/**
 * The webhook registry side of this service's webhook owners, and the sealer of their
 * secrets (WEBHOOK_SECRET_KEY). Each owner feature registers a WebhookTargetSource.
 */
@Module({
  controllers: [WebhooksController],
  providers: [
    WebhookTargetsService,
    { provide: SecretSealer, useFactory: (env: AgentEnv) => SecretSealer.fromEnv(env), inject: [APP_ENV] },
  ],
  exports: [WebhookTargetsService, SecretSealer],
})
export class WebhooksModule {}
