import { Module } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { registerQueues } from '@waggle/platform';
import { AuthModule } from '../auth/auth.module';
import { ActiveWorkspaces } from './active-workspaces';
import { AgentWebhookController } from './agent-webhook.controller';
import { PrivateDeliveriesController } from './private-deliveries.controller';
import { PromptWebhookController } from './prompt-webhook.controller';
import { WebhookSecretGuard } from './webhook-secret.guard';
import { TriggerAdmissionGuard } from '../meter/trigger-admission.guard';

/** Webhook triggers (authenticated by the owner's secret from the registry) and the callback delivery log. */
@Module({
  imports: [AuthModule, registerQueues([QueueNames.promptRuns, QueueNames.agentRuns])],
  controllers: [PromptWebhookController, AgentWebhookController, PrivateDeliveriesController],
  providers: [WebhookSecretGuard, TriggerAdmissionGuard, ActiveWorkspaces],
})
export class WebhooksModule {}
