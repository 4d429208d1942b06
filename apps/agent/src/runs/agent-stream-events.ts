import type { AgentStreamEvent } from '@waggle/contracts';
import type { LoopResult, TurnListener } from './usecases/run-agent-turn/tool-loop';

const seconds = (ms: number) => Math.round(ms) / 1000;

/**
 * A streamed run's events as its turn goes (decisions: the agent stream): each text fragment
 * under the model answering it, the end of each text kind, and each tool call with its
 * observation (an input that is not an object is sent as `{ value }`).
 */
export function turnEvents(requestId: string, emit: (event: AgentStreamEvent) => void): TurnListener {
  return {
    fragment: (kind, text, model) => emit({ request_id: requestId, type: kind, model, response: text, done: false }),
    textDone: (kind, model) => emit({ request_id: requestId, type: kind, model, response: '', done: true }),
    tool: (record, input, toolType) =>
      emit({
        request_id: requestId,
        type: 'tool',
        tool_id: record.toolCallId,
        tool: record.toolName,
        tool_type: toolType,
        tool_input:
          input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : { value: input },
        observation: record.observation,
      }),
  };
}

/** The last event of a completed stream: the run's usage, how long it took since the model was first called, why it stopped. */
export function usageEvent(requestId: string, result: LoopResult, startedAt: number): AgentStreamEvent {
  return {
    request_id: requestId,
    type: 'usage',
    usage: { ...result.usage, duration: seconds(Date.now() - startedAt) },
    stop_reason: result.stopReason,
  };
}
