import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { QueueNames, type AgentTriggerJob } from '@waggle/contracts';
import { InjectQueue } from '@nestjs/bullmq';
import { APP_ENV, requestContext, type JobQueue } from '@waggle/platform';
import { LedgerPublisher } from '@waggle/runs';
import type { GatewayEnv } from '../config/gateway.env';
import { AgentWebhookBody } from './agent-webhook.dto';
import { checkTriggerBody, TriggerIntakeController, type AcceptedTrigger } from './trigger-intake';
import { WebhookTriggerRoute, type WebhookTriggerRequest } from './webhook-secret.guard';

/**
 * An agent run by a webhook, exactly as prompt triggers are: authenticated by the agent's
 * secret from the registry, queued in Redis (the agent service's workers take it, also after
 * it was down), answered 202 at once and delivered by a signed callback (`agent.completed` /
 * `agent.failed`) to `async.callback_url`.
 */
@ApiExcludeController()
@Controller('v1/agent/webhooks')
export class AgentWebhookController extends TriggerIntakeController<'agent-runs'> {
  constructor(
    @InjectQueue(QueueNames.agentRuns) triggers: JobQueue<'agent-runs'>,
    ledger: LedgerPublisher,
    @Inject(APP_ENV) env: GatewayEnv,
  ) {
    super(triggers, ledger, env);
  }

  @Post(':agent_id')
  @HttpCode(202)
  @WebhookTriggerRoute('agent', 'agent_id')
  async trigger(@Body() body: AgentWebhookBody, @Req() request: WebhookTriggerRequest): Promise<AcceptedTrigger> {
    const target = request.webhookTarget;
    const missing = body.message === undefined ? [{ field: 'message', why: 'message is required' }] : [];
    const callbackUrl = checkTriggerBody(missing, body.async?.callback_url, this.callbackUrls);
    const requestId = requestContext.get()?.requestId ?? '';
    const job: AgentTriggerJob = {
      request_id: requestId,
      workspace_id: target.workspace_id,
      agent_id: target.id,
      message: body.message ?? '',
      thread_id: body.thread_id ?? null,
      metadata: body.metadata ?? {},
      user: body.user ?? null,
      callback_url: callbackUrl,
      accepted_at: new Date().toISOString(),
    };
    return this.accept(job, {
      request_type: 'agent',
      requestable_type: 'agent',
      requestable_id: job.agent_id,
      message: job.message,
    });
  }
}
