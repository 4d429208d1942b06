import { Body, Controller, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { WaggleException } from '@waggle/errors';
import { checkVersionSelector, QueueNames, ReleasePatterns, send, type PromptTriggerJob, type TriggerVersion } from '@waggle/contracts';
import { InjectQueue } from '@nestjs/bullmq';
import { APP_ENV, NatsRpcClient, requestContext, type JobQueue } from '@waggle/platform';
import { LedgerPublisher } from '@waggle/runs';
import type { GatewayEnv } from '../config/gateway.env';
import { PromptWebhookBody } from './prompt-webhook.dto';
import { checkTriggerBody, TriggerIntakeController, type AcceptedTrigger } from './trigger-intake';
import { WebhookTriggerRoute, type WebhookTriggerRequest } from './webhook-secret.guard';

/**
 * A prompt deployment variant run by a webhook: accepted here (queued in Redis, where
 * invocation's workers take it) and answered by a callback to `async.callback_url`.
 */
@ApiExcludeController()
@Controller('v1/prompt/webhooks')
export class PromptWebhookController extends TriggerIntakeController<'prompt-runs'> {
  constructor(
    @InjectQueue(QueueNames.promptRuns) triggers: JobQueue<'prompt-runs'>,
    ledger: LedgerPublisher,
    @Inject(APP_ENV) env: GatewayEnv,
    private readonly rpc: NatsRpcClient,
  ) {
    super(triggers, ledger, env);
  }

  @Post(':prompt_endpoint_id/variants/:variant_id')
  @HttpCode(202)
  @WebhookTriggerRoute('prompt_deployment', 'prompt_endpoint_id')
  async trigger(
    @Param('variant_id') variantId: string,
    @Body() body: PromptWebhookBody,
    @Req() request: WebhookTriggerRequest,
  ): Promise<AcceptedTrigger> {
    const target = request.webhookTarget;
    // The caller's string names a key of a plain object: only its own keys (`constructor` is no variant).
    const key = variantId.toLowerCase();
    const variant = target.variants && Object.hasOwn(target.variants, key) ? target.variants[key] : undefined;
    if (!variant) throw new WaggleException('resource_not_found', { detail: 'variant_not_found' });
    // The registry knows the deployed version only: a label or a version is asked of the owner (the trigger alone pays that hop).
    checkVersionSelector(body);
    const selected: Pick<TriggerVersion, 'version_id' | 'variables'> =
      body.label === undefined && body.version === undefined
        ? variant
        : await send(this.rpc, ReleasePatterns.resolveTrigger, {
            workspace_id: target.workspace_id,
            prompt_endpoint_id: target.id,
            variant_id: key,
            label: body.label,
            version: body.version,
          });
    // Every missing field is named at once: the variables, and where the result goes.
    const inputs = body.inputs ?? {};
    const missing = selected.variables
      .filter((name) => !Object.hasOwn(inputs, name))
      .map((name) => ({ field: `inputs.${name}`, why: `inputs.${name} is required by the deployed prompt version` }));
    const callbackUrl = checkTriggerBody(missing, body.async?.callback_url, this.callbackUrls);

    const requestId = requestContext.get()?.requestId ?? '';
    const job: PromptTriggerJob = {
      request_id: requestId,
      workspace_id: target.workspace_id,
      prompt_endpoint_id: target.id,
      variant_id: variantId.toLowerCase(),
      version_id: selected.version_id,
      inputs,
      metadata: body.metadata ?? {},
      user: body.user ?? null,
      ...(body.label !== undefined && { label: body.label }),
      callback_url: callbackUrl,
      accepted_at: new Date().toISOString(),
    };
    return this.accept(job, {
      request_type: 'prompt',
      requestable_type: 'prompt_deployment',
      requestable_id: job.prompt_endpoint_id,
      variant: variant.name,
      variant_id: job.variant_id,
      version_id: job.version_id,
    });
  }
}
