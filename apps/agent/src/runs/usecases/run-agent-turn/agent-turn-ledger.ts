import type { WaggleException } from '@waggle/errors';
import type { ModelRun, SpecUsage } from '@waggle/providers';
import { CANCELLED_RUN_DATA, LedgerRun, type LedgerPublisher } from '@waggle/runs';
import type { AgentTurnInput } from './run-agent-turn';
import { toolCallView, type LoopResult } from './tool-loop';

/**
 * An agent turn's ledger record: published `running` when the turn is prepared (before a model
 * is called), then once in its terminal state. Each terminal record names the model that
 * answered (a fallback's id once one has, D41) and the attempts of the model chain.
 */
export class AgentTurnLedger {
  private readonly record: LedgerRun;

  constructor(publisher: LedgerPublisher, input: AgentTurnInput, agentId: string, model: string) {
    this.record = new LedgerRun(publisher, {
      request_id: input.request_id,
      workspace_id: input.workspace_id,
      request_type: 'agent',
      requestable_type: 'agent',
      requestable_id: agentId,
      deployment: null,
      variant: null,
      variant_id: null,
      version_id: null,
      version: null,
      model,
      message: input.message,
      metadata: input.metadata ?? {},
      user: input.user ?? null,
      ...(input.surface && { surface: input.surface }),
    });
  }

  /** The answer, its usage and its tool calls; `threadKey` is the caller's thread, for a threaded turn. */
  completed(durationMs: number, result: LoopResult, models: ModelRun, threadKey: string | undefined): void {
    this.record.finish(
      'completed',
      durationMs,
      result.usage,
      {
        response: result.response,
        model: models.route.modelId,
        usage: result.usage,
        ...models.record(),
        ...(result.reasoning && { reasoning: result.reasoning }),
        stop_reason: result.stopReason,
        tool_calls: result.toolCalls.map((call) => ({ ...toolCallView(call), duration_ms: call.durationMs })),
        ...(threadKey !== undefined && { thread_id: threadKey }),
      },
      models.route.modelId,
      models.cost.fields(),
    );
  }

  /** A cancel stopped the turn: the usage of the model turns it finished; its cost includes the turn cut short (estimated). */
  cancelled(durationMs: number, usage: SpecUsage, models: ModelRun): void {
    const data = { ...CANCELLED_RUN_DATA, ...models.record() };
    this.record.finish('cancelled', durationMs, usage, data, models.route.modelId, models.cost.fields());
  }

  /** The streaming client left before the answer was complete: cancelled, charged for what it used (estimated where the provider never said). */
  disconnected(durationMs: number, models: ModelRun): void {
    this.record.finish('cancelled', durationMs, models.cost.estimatedUsage(), null, models.route.modelId, models.cost.fields());
  }

  failed(durationMs: number, failure: WaggleException, models: ModelRun): void {
    const data = { error: failure.message, error_code: failure.code, ...models.record() };
    this.record.finish('failed', durationMs, null, data, models.route.modelId, models.cost.fields());
  }

  /** The answer was complete but its thread could not keep it: failed, under the agent's own model, its calls still charged. */
  notStored(durationMs: number, failure: WaggleException, models: ModelRun): void {
    this.record.finish('failed', durationMs, null, { error: failure.message, error_code: failure.code }, undefined, models.cost.fields());
  }
}
