import { Injectable, Logger } from '@nestjs/common';
import type {
  ConversationToolCall,
  PromptInvokeResponse,
  PromptRunRequest,
  PromptStreamEvent,
  PromptTriggerJob,
  RunCostFields,
  RunStatus,
} from '@waggle/contracts';
import { streamErrorEvent } from '@waggle/errors';
import { providerFailure, routeProviderWarnings, type ToolCall } from '@waggle/providers';
import { CANCELLED_RUN_DATA, isCancelledByRequest, LedgerPublisher, LedgerRun, RunCancellation, runCancelledError } from '@waggle/runs';
import { Observable } from 'rxjs';
import { PromptResolutionCache } from '../prompts/prompt-resolution.cache';
import type { ServedPrompt } from '../prompts/prompt-resolution.cache';
import type { ResolvedPrompt } from '../prompts/prompts.repository';
import { callOf, PromptExecution, type PreparedPrompt, type PromptTarget } from './prompt-execution';
import { lastUserText } from './prompt-messages';

interface PreparedRun {
  prompt: PreparedPrompt;
  ledger: LedgerRun;
}

/** Told what a whole run's model calls cost once it ended, however it ended (an experiment's cell keeps it). */
export type RunCostObserver = (cost: RunCostFields) => void;

const seconds = (ms: number) => Math.round(ms) / 1000;

/**
 * Runs prompt deployments: everything that can be refused is refused before the
 * provider is called; the ledger is written beside the run, never in front of it.
 */
@Injectable()
export class PromptRunner {
  constructor(
    private readonly execution: PromptExecution,
    private readonly ledger: LedgerPublisher,
    private readonly cancellation: RunCancellation,
    private readonly resolutions: PromptResolutionCache,
  ) {
    const logger = new Logger('ProviderLayer');
    // The SDK's per-call warnings go to the JSON log instead of the console.
    routeProviderWarnings(({ warnings, provider, model }) => logger.warn({ msg: 'provider warning', provider, model, warnings }));
  }

  /** A whole run (sync, or a trigger's); a cancel aborts its provider call and answers 409 run_cancelled. */
  async invoke(
    request: PromptRunRequest,
    resolved?: ResolvedPrompt | ServedPrompt,
    abortSignal?: AbortSignal,
    onCost?: RunCostObserver,
  ): Promise<PromptInvokeResponse> {
    return this.cancellation.tracking(request.request_id, async (tracked) => {
      const run = await this.prepare(request, resolved);
      return this.complete(request, run, abortSignal ? AbortSignal.any([tracked.signal, abortSignal]) : tracked.signal, onCost);
    });
  }

  private async complete(
    request: PromptRunRequest,
    run: PreparedRun,
    signal: AbortSignal,
    onCost?: RunCostObserver,
  ): Promise<PromptInvokeResponse> {
    const started = Date.now();
    const models = this.execution.modelRun(run.prompt);
    try {
      return await this.completed(request, run, signal, models, started);
    } finally {
      onCost?.(models.cost.fields());
    }
  }

  private async completed(
    request: PromptRunRequest,
    run: PreparedRun,
    signal: AbortSignal,
    models: ReturnType<PromptExecution['modelRun']>,
    started: number,
  ): Promise<PromptInvokeResponse> {
    try {
      const result = await this.execution.complete(run.prompt, signal, models);
      const durationMs = Date.now() - started;
      run.ledger.finish(
        'completed',
        durationMs,
        result.usage,
        { response: result.response, reasoning: result.reasoning, stop_reason: result.stopReason, ...models.record() },
        result.model,
        models.cost.fields(),
      );
      return {
        request_id: request.request_id,
        model: result.model,
        duration: seconds(durationMs),
        reasoning: result.reasoning,
        response: result.response,
        usage: result.usage,
        stop_reason: result.stopReason,
        ...(run.prompt.tools && { tool_calls: result.toolCalls.map(toConversationCall) }),
        ...servedVersion(request, run.prompt),
      };
    } catch (error) {
      if (isCancelledByRequest(signal)) {
        // The provider reports usage only with the answer: the aborted call's is estimated, and charged.
        run.ledger.finish(
          'cancelled',
          Date.now() - started,
          models.cost.estimatedUsage(),
          { ...CANCELLED_RUN_DATA, ...models.record() },
          models.route.modelId,
          models.cost.fields(),
        );
        throw runCancelledError(request.request_id);
      }
      const failure = providerFailure(error, models.route);
      run.ledger.finish(
        'failed',
        Date.now() - started,
        null,
        { error: failure.message, error_code: failure.code, ...models.record() },
        models.route.modelId,
        models.cost.fields(),
      );
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
      let status: RunStatus = 'failed';
      const run = async () => {
        const { prompt, ledger } = await this.prepare(request);
        const started = Date.now();
        const models = this.execution.modelRun(prompt);
        const text = { reasoning: '', response: '' };
        try {
          for await (const part of models.stream({ ...callOf(prompt), abortSignal: tracked.signal })) {
            if (part.type === 'finish') {
              const durationMs = Date.now() - started;
              subscriber.next({
                request_id: request.request_id,
                type: 'usage',
                usage: { ...part.usage, duration: seconds(durationMs) },
                stop_reason: part.stopReason,
                ...servedVersion(request, prompt),
              });
              const data = { ...text, stop_reason: part.stopReason, ...models.record() };
              ledger.finish('completed', durationMs, part.usage, data, models.route.modelId, models.cost.fields());
              status = 'completed';
            } else if (part.type === 'tool-call') {
              // Only a conversation offers tools: its caller runs them.
              const toolCall = toConversationCall(part.toolCall);
              subscriber.next({ request_id: request.request_id, type: 'tool_call', model: models.route.modelId, tool_call: toolCall });
            } else {
              text[part.type] += part.text;
              subscriber.next({ request_id: request.request_id, type: part.type, model: models.route.modelId, response: part.text });
            }
          }
        } catch (error) {
          const model = models.route.modelId;
          if (tracked.cancelled) {
            // A cancel: the usage of a stream cut short comes with no finish, so it is estimated (and charged).
            const data = { ...CANCELLED_RUN_DATA, ...models.record() };
            ledger.finish('cancelled', Date.now() - started, models.cost.estimatedUsage(), data, model, models.cost.fields());
            status = 'cancelled';
            subscriber.next(streamErrorEvent(request.request_id, runCancelledError(request.request_id)));
            return;
          }
          if (tracked.signal.aborted) {
            // The client left: a cancellation, not a failure, and silent; what streamed is charged.
            ledger.finish('cancelled', Date.now() - started, models.cost.estimatedUsage(), null, model, models.cost.fields());
            status = 'cancelled';
            return;
          }
          const failure = providerFailure(error, models.route);
          ledger.finish(
            'failed',
            Date.now() - started,
            null,
            { error: failure.message, error_code: failure.code, ...models.record() },
            model,
            models.cost.fields(),
          );
          subscriber.next(streamErrorEvent(request.request_id, failure, models.route.provider));
        }
      };
      run()
        .finally(() => tracked.done(status))
        .then(
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
      ...(job.label && { label: job.label }),
    };
    // What the trigger pinned, and how it was chosen when it was accepted.
    const served: ServedPrompt = { ...pinned, label: job.label ?? null, split: job.split ?? null };
    return this.invoke(request, served, AbortSignal.timeout(timeoutMs));
  }

  private async prepare(request: PromptRunRequest, resolved?: ResolvedPrompt | ServedPrompt): Promise<PreparedRun> {
    const prompt = await this.execution.prepare(promptTargetOf(request), resolved);
    const { deployment, variant, version } = prompt;
    const ledger = new LedgerRun(this.ledger, {
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
      model: prompt.catalogRoute.id,
      message: lastUserText(prompt.messages),
      metadata: request.metadata ?? {},
      user: request.user ?? null,
      ...(request.surface && { surface: request.surface }),
      label: prompt.label,
      split: prompt.split,
    });
    return { prompt, ledger };
  }
}

/**
 * What a run request asks to run: its variant at the version its `label` or `version` names,
 * or, for a split variant, assigned by its `user` (sticky) or else by its request (per request).
 */
export function promptTargetOf(request: PromptRunRequest): PromptTarget {
  const user = request.user ?? '';
  return {
    workspaceId: request.workspace_id,
    deployment: request.deployment,
    variant: request.variant,
    inputs: request.inputs ?? {},
    conversation: request.conversation,
    selector: { label: request.label, version: request.version },
    assignment: user === '' ? { key: request.request_id, sticky: false } : { key: user, sticky: true },
  };
}

/**
 * `version` (and `label`) on an answer when the run chose its version (a label, a version, a
 * split): without them the answer keeps the contract's fields only.
 */
function servedVersion(request: PromptRunRequest, prompt: ServedPrompt): { version?: number; label?: string } {
  if (request.label === undefined && request.version === undefined && prompt.split === null) return {};
  return { version: prompt.version.version, ...(prompt.label !== null && { label: prompt.label }) };
}

/** A model's tool call as a conversation carries it: the arguments as JSON text. */
function toConversationCall(call: ToolCall): ConversationToolCall {
  return { id: call.toolCallId, name: call.toolName, arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input) };
}
