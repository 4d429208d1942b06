import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { ModelRoute as CatalogRoute, PromptInvokeResponse, PromptRunRequest, PromptStreamEvent, PromptTriggerJob, UsageObject } from '@waggle/contracts';
import { ERROR_CATALOG, WaggleException } from '@waggle/errors';
import {
  complete,
  ProviderRegistry,
  providerFailure,
  providerSettingsFromEnv,
  routeProviderWarnings,
  stream,
  toModelRoute,
  type ModelRoute,
  type PromptMessage,
  type PromptParams,
} from '@waggle/providers';
import { LRUCache } from 'lru-cache';
import { Observable } from 'rxjs';
import type { Repository } from 'typeorm';
import { LedgerWriter } from '../ledger/ledger-writer';
import { RequestRecordEntity } from '../ledger/request-record.entity';
import { PromptDeploymentEntity } from '../prompts/entities/prompt-deployment.entity';
import { PromptVariantEntity } from '../prompts/entities/prompt-variant.entity';
import { PromptVersionEntity, type StoredPromptParams } from '../prompts/entities/prompt-version.entity';
import { PromptResolutionCache, type ResolvedPrompt } from '../prompts/prompt-resolution.cache';
import { ModelRoutes } from './model-routes';
import { imageUrls, lastUserText, renderMessages } from './prompt-messages';
import { RunCancellation } from './run-cancellation';

interface PreparedRun {
  deployment: PromptDeploymentEntity;
  variant: PromptVariantEntity;
  version: PromptVersionEntity;
  catalogRoute: CatalogRoute;
  route: ModelRoute;
  messages: PromptMessage[];
  params: PromptParams;
  record: RequestRecordEntity;
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
  private readonly registry = new ProviderRegistry(providerSettingsFromEnv());
  private readonly pinned = new LRUCache<string, ResolvedPrompt>({ max: 1_000 });

  constructor(
    @InjectRepository(PromptDeploymentEntity) private readonly deployments: Repository<PromptDeploymentEntity>,
    @InjectRepository(PromptVariantEntity) private readonly variants: Repository<PromptVariantEntity>,
    @InjectRepository(PromptVersionEntity) private readonly versions: Repository<PromptVersionEntity>,
    private readonly routes: ModelRoutes,
    private readonly ledger: LedgerWriter,
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
      this.finish(run, 'completed', durationMs, result.usage, { response: result.response, reasoning: result.reasoning, stop_reason: result.stopReason });
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
          for await (const part of stream(this.registry, prepared.route, { messages: prepared.messages, params: prepared.params, abortSignal: tracked.signal })) {
            if (part.type === 'finish') {
              const durationMs = Date.now() - started;
              subscriber.next({ request_id: request.request_id, type: 'usage', usage: { ...part.usage, duration: seconds(durationMs) }, stop_reason: part.stopReason });
              this.finish(prepared, 'completed', durationMs, part.usage, { ...text, stop_reason: part.stopReason });
            } else {
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
    const { deployment, variant, version } = await this.pinnedPrompt(job);
    const request: PromptRunRequest = {
      workspace_id: job.workspace_id,
      request_id: job.request_id,
      deployment: deployment.name,
      variant: variant.name,
      inputs: job.inputs,
      metadata: job.metadata,
      user: job.user ?? undefined,
    };
    return this.invoke(request, { deployment, variant, version }, AbortSignal.timeout(timeoutMs));
  }

  /**
   * The deployment, variant and version a trigger pinned. What a run reads of them never
   * changes (names and workspace, and a version is immutable), so they are kept in memory.
   */
  private async pinnedPrompt(job: PromptTriggerJob): Promise<ResolvedPrompt> {
    const key = `${job.prompt_endpoint_id}/${job.variant_id}/${job.version_id}`;
    const cached = this.pinned.get(key);
    if (cached && cached.deployment.workspaceId === job.workspace_id) return cached;
    const deployment = await this.deployments.findOneBy({ id: job.prompt_endpoint_id, workspaceId: job.workspace_id });
    const variant = deployment && (await this.variants.findOneBy({ id: job.variant_id, deploymentId: deployment.id }));
    const version = variant && (await this.versions.findOneBy({ id: job.version_id, variantId: variant.id }));
    if (!deployment || !variant || !version) throw new WaggleException('resource_not_found', { message: 'The prompt deployment or variant no longer exists' });
    const resolved = { deployment, variant, version };
    this.pinned.set(key, resolved);
    return resolved;
  }

  private async resolve(request: PromptRunRequest): Promise<ResolvedPrompt> {
    const deployment = await this.deployments.findOneBy({ workspaceId: request.workspace_id, name: request.deployment });
    if (!deployment) throw new WaggleException('resource_not_found', { message: `Deployment not found: ${request.deployment}` });
    const variant = await this.variants.findOne({ where: { deploymentId: deployment.id, name: request.variant }, relations: { currentVersion: true } });
    const version = variant?.currentVersion;
    if (!variant || !version) throw new WaggleException('resource_not_found', { message: `Variant not found: ${request.variant}` });
    return { deployment, variant, version };
  }

  private async prepare(request: PromptRunRequest, resolved?: ResolvedPrompt): Promise<PreparedRun> {
    const { deployment, variant, version } = resolved ?? (await this.resolutions.get(request.workspace_id, request.deployment, request.variant, () => this.resolve(request)));
    const catalogRoute = await this.routes.get(version.model).catch((error: unknown) => {
      if (error instanceof WaggleException && error.code === 'resource_not_found') throw new WaggleException('model_deprecated', { params: { model: version.model } });
      throw error;
    });
    if (catalogRoute.status === 'deprecated') throw new WaggleException('model_deprecated', { params: { model: catalogRoute.name } });
    if (catalogRoute.model_type !== 'llm') throw new WaggleException('unsupported_resource_type', { message: `${catalogRoute.name} is not a chat model` });
    const inputs = request.inputs ?? {};
    const images = imageUrls(version.imageInputs, inputs);
    if (images.length > 0 && !catalogRoute.is_vision) throw new WaggleException('vision_not_supported');
    const route = toModelRoute(catalogRoute);
    // Missing credentials answer config_error here, before anything is recorded or sent.
    this.registry.languageModel(route);
    const rendered = renderMessages(version.messages, inputs, images);
    const record = Object.assign(new RequestRecordEntity(), {
      id: request.request_id,
      workspaceId: request.workspace_id,
      requestType: 'prompt',
      requestableType: 'prompt_deployment',
      requestableId: deployment.id,
      deployment: deployment.name,
      variant: variant.name,
      variantId: variant.id,
      versionId: version.id,
      version: version.version,
      model: catalogRoute.id,
      status: 'running',
      message: lastUserText(rendered),
      metadata: request.metadata ?? {},
      userLabel: request.user ?? null,
      generatedAt: new Date(),
      startedAt: new Date(),
      endedAt: null,
      durationMs: null,
      usage: null,
      data: null,
    } satisfies Partial<RequestRecordEntity>);
    this.ledger.save(record);
    return { deployment, variant, version, catalogRoute, route, messages: rendered as PromptMessage[], params: toPromptParams(version.params), record };
  }

  private finish(run: PreparedRun, status: RequestRecordEntity['status'], durationMs: number, usage: UsageObject | null, data: Record<string, unknown> | null): void {
    Object.assign(run.record, { status, endedAt: new Date(), durationMs, usage, data });
    this.ledger.save(run.record);
  }
}
