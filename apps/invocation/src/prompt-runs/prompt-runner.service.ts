import { Injectable, Logger } from '@nestjs/common';
import type {
  ModelRoute as CatalogRoute,
  LedgerRecord,
  PromptInvokeResponse,
  PromptRunRequest,
  PromptStreamEvent,
  PromptTriggerJob,
  RunStatus,
  UsageObject,
} from '@waggle/contracts';
import { ERROR_CATALOG } from '@waggle/errors';
import {
  complete,
  ModelRoutes,
  ProviderRegistry,
  providerFailure,
  routeProviderWarnings,
  resolveChatRoute,
  stream,
  type ModelRoute,
  type PromptMessage,
  type PromptParams,
} from '@waggle/providers';
import { LedgerPublisher, RunCancellation } from '@waggle/platform';
import { Observable } from 'rxjs';
import type { PromptDeploymentEntity } from '../prompts/entities/prompt-deployment.entity';
import type { PromptVariantEntity } from '../prompts/entities/prompt-variant.entity';
import type { PromptVersionEntity, StoredPromptParams } from '../prompts/entities/prompt-version.entity';
import { PromptResolutionCache } from '../prompts/prompt-resolution.cache';
import type { ResolvedPrompt } from '../prompts/prompts.repository';
import { imageUrls, lastUserText, renderMessages } from './prompt-messages';

interface PreparedRun {
  deployment: PromptDeploymentEntity;
  variant: PromptVariantEntity;
  version: PromptVersionEntity;
  catalogRoute: CatalogRoute;
  route: ModelRoute;
  messages: PromptMessage[];
  params: PromptParams;
  record: LedgerRecord;
}

function toPromptParams(params: StoredPromptParams): PromptParams {
  return {
    temperature: params.temperature,
    topP: params.top_p,
    maxOutputTokens: params.max_tokens,
    stop: params.stop,
    reasoningEffort: params.reasoning_effort,
    thinkingBudget: params.thinking_budget,
    responseFormat: params.response_format,
  };
}

const seconds = (ms: number) => Math.round(ms) / 1000;

/**
 * Runs prompt deployments: everything that can be refused is refused before the
 * provider is called; the ledger is written beside the run, never in front of it.
 */
@Injectable()
export class PromptRunner {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly routes: ModelRoutes,
    private readonly ledger: LedgerPublisher,
    private readonly cancellation: RunCancellation,
    private readonly resolutions: PromptResolutionCache,
  ) {
    const logger = new Logger('ProviderLayer');
    // The SDK's per-call warnings go to the JSON log instead of the console.
    routeProviderWarnings(({ warnings, provider, model }) => logger.warn({ msg: 'provider warning', provider, model, warnings }));
  }

  async invoke(request: PromptRunRequest, resolved?: ResolvedPrompt, abortSignal?: AbortSignal): Promise<PromptInvokeResponse> {
    const run = await this.prepare(request, resolved);
    const started = Date.now();
    try {
      const result = await complete(this.registry, run.route, { messages: run.messages, params: run.params, abortSignal });
      const durationMs = Date.now() - started;
      this.finish(run, 'completed', durationMs, result.usage, {
        response: result.response,
        reasoning: result.reasoning,
        stop_reason: result.stopReason,
      });
      return {
        request_id: request.request_id,
        model: run.route.modelId,
        duration: seconds(durationMs),
        reasoning: result.reasoning,
        response: result.response,
        usage: result.usage,
        stop_reason: result.stopReason,
      };
    } catch (error) {
      const failure = providerFailure(error, run.route);
      this.finish(run, 'failed', Date.now() - started, null, { error: failure.message, error_code: failure.code });
      throw failure;
    }
  }

  /**
   * The events of a streaming run, each sent as soon as the provider produces it. Errors
   * found before the provider is called end the observable with that error (the gateway
   * answers with a JSON error); a provider failure after that is an `error` event.
   */
  stream(request: PromptRunRequest): Observable<PromptStreamEvent> {
    return new Observable<PromptStreamEvent>((subscriber) => {
      const tracked = this.cancellation.track(request.request_id);
      const run = async () => {
        const prepared = await this.prepare(request);
        const started = Date.now();
        const model = prepared.route.modelId;
        const text = { reasoning: '', response: '' };
        try {
          for await (const part of stream(this.registry, prepared.route, {
            messages: prepared.messages,
            params: prepared.params,
            abortSignal: tracked.signal,
          })) {
            if (part.type === 'finish') {
              const durationMs = Date.now() - started;
              subscriber.next({
                request_id: request.request_id,
                type: 'usage',
                usage: { ...part.usage, duration: seconds(durationMs) },
                stop_reason: part.stopReason,
              });
              this.finish(prepared, 'completed', durationMs, part.usage, { ...text, stop_reason: part.stopReason });
            } else if (part.type !== 'tool-call') {
              // A prompt run offers no tools, so no tool-call parts arrive.
              text[part.type] += part.text;
              subscriber.next({ request_id: request.request_id, type: part.type, model, response: part.text });
            }
          }
        } catch (error) {
          if (tracked.signal.aborted) {
            // The client left: a cancellation, not a failure.
            this.finish(prepared, 'cancelled', Date.now() - started, null, null);
            return;
          }
          const failure = providerFailure(error, prepared.route);
          this.finish(prepared, 'failed', Date.now() - started, null, { error: failure.message, error_code: failure.code });
          subscriber.next({
            request_id: request.request_id,
            type: 'error',
            error: failure.message,
            message: failure.message,
            error_code: failure.code,
            error_type: ERROR_CATALOG[failure.code].category,
            status_code: failure.status,
            provider: prepared.route.provider,
          });
        }
      };
      run().then(
        () => subscriber.complete(),
        (error: unknown) => subscriber.error(error),
      );
      return () => tracked.done();
    });
  }

  /**
   * A webhook trigger's run, of the version pinned when the trigger was accepted. No client
   * waits on it, so it has a time limit of its own: past it the provider call is aborted
   * and the run fails.
   */
  async invokeTriggered(job: PromptTriggerJob, timeoutMs: number): Promise<PromptInvokeResponse> {
    const pinned = await this.resolutions.pinned({
      workspaceId: job.workspace_id,
      deploymentId: job.prompt_endpoint_id,
      variantId: job.variant_id,
      versionId: job.version_id,
    });
    const request: PromptRunRequest = {
      workspace_id: job.workspace_id,
      request_id: job.request_id,
      deployment: pinned.deployment.name,
      variant: pinned.variant.name,
      inputs: job.inputs,
      metadata: job.metadata,
      user: job.user ?? undefined,
    };
    return this.invoke(request, pinned, AbortSignal.timeout(timeoutMs));
  }

  private async prepare(request: PromptRunRequest, resolved?: ResolvedPrompt): Promise<PreparedRun> {
    const { deployment, variant, version } =
      resolved ?? (await this.resolutions.resolve(request.workspace_id, request.deployment, request.variant));
    const inputs = request.inputs ?? {};
    const images = imageUrls(version.imageInputs, inputs);
    const { catalog: catalogRoute, route } = await resolveChatRoute(this.routes, this.registry, version.model, {
      images: images.length > 0,
    });
    const rendered = renderMessages(version.messages, inputs, images);
    const now = new Date().toISOString();
    const record: LedgerRecord = {
      request_id: request.request_id,
      workspace_id: request.workspace_id,
      request_type: 'prompt',
      requestable_type: 'prompt_deployment',
      requestable_id: deployment.id,
      deployment: deployment.name,
      variant: variant.name,
      variant_id: variant.id,
      version_id: version.id,
      version: version.version,
      model: catalogRoute.id,
      status: 'running',
      message: lastUserText(rendered),
      metadata: request.metadata ?? {},
      user: request.user ?? null,
      generated_at: now,
      started_at: now,
      ended_at: null,
      duration_ms: null,
      usage: null,
      data: null,
    };
    this.ledger.save(record);
    return {
      deployment,
      variant,
      version,
      catalogRoute,
      route,
      messages: rendered as PromptMessage[],
      params: toPromptParams(version.params),
      record,
    };
  }

  private finish(
    run: PreparedRun,
    status: RunStatus,
    durationMs: number,
    usage: UsageObject | null,
    data: Record<string, unknown> | null,
  ): void {
    run.record = {
      ...run.record,
      status,
      ended_at: new Date().toISOString(),
      duration_ms: durationMs,
      usage: usage as Record<string, unknown> | null,
      data,
    };
    this.ledger.save(run.record);
  }
}
