import { Body, Controller, HttpCode, Inject, Logger, Post, Req } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import { ApiExcludeController } from '@nestjs/swagger';
import { QueueNames, type AgentTriggerJob } from '@waggle/contracts';
import { APP_ENV, LedgerPublisher, requestContext, type JobQueue } from '@waggle/platform';
import { CallbackUrlPolicy } from '@waggle/webhooks';
import type { GatewayEnv } from '../config/gateway.env';
import { AgentWebhookBody } from './agent-webhook.dto';
import type { AcceptedTrigger } from './prompt-webhook.controller';
import { checkTriggerBody, enqueueTrigger } from './trigger-intake';
import { WebhookTriggerRoute, type WebhookTriggerRequest } from './webhook-secret.guard';

/**
 * An agent run by a webhook, exactly as prompt triggers are: authenticated by the agent's
 * secret from the registry, queued in Redis (the agent service's workers take it, also after
 * it was down), answered 202 at once and delivered by a signed callback (`agent.completed` /
 * `agent.failed`) to `async.callback_url`.
 */
@ApiExcludeController()
@Controller('v1/agent/webhooks')
export class AgentWebhookController {
  private readonly logger = new Logger(AgentWebhookController.name);
  private readonly callbackUrls: CallbackUrlPolicy;

  constructor(
    private readonly ledger: LedgerPublisher,
    @Inject(APP_ENV) env: GatewayEnv,
    @InjectQueue(QueueNames.agentRuns) private readonly triggers: JobQueue<'agent-runs'>,
  ) {
    this.callbackUrls = CallbackUrlPolicy.fromEnv(env);
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
    await enqueueTrigger(this.triggers, requestId, job, this.logger);
    // The run is in the ledger from the moment it is accepted, even while the agent service is down.
    this.ledger.save({
      request_id: requestId,
      workspace_id: job.workspace_id,
      request_type: 'agent',
      requestable_type: 'agent',
      requestable_id: job.agent_id,
      deployment: null,
      variant: null,
      variant_id: null,
      version_id: null,
      version: null,
      model: null,
      status: 'running',
      message: job.message,
      metadata: job.metadata,
      user: job.user,
      generated_at: job.accepted_at,
      started_at: null,
      ended_at: null,
      duration_ms: null,
      usage: null,
      data: null,
    });
    return { request_id: requestId, run_status: 'running' };
  }
}
