import { WaggleException } from '@waggle/errors';
import type { ModelRun, ToolCall } from '@waggle/providers';
import type { ModelTurn, TurnListener } from './tool-loop';

/** Each model turn answered whole (the model and its fallbacks, D41). */
export function wholeTurns(models: ModelRun): ModelTurn {
  return (call) => models.complete(call);
}

/**
 * Each model turn streamed: its reasoning and response text go to the listener as they come,
 * each kind closed (`textDone`) when another kind, a tool call or the turn's end follows; the
 * turn's result is what the whole stream said. A stream that ends without finishing is a
 * provider error.
 */
export function streamedTurns(models: ModelRun, listener: TurnListener): ModelTurn {
  return async (call) => {
    const text = { reasoning: '', response: '' };
    const toolCalls: ToolCall[] = [];
    let open: 'reasoning' | 'response' | undefined;
    const close = () => {
      if (open) listener.textDone?.(open, models.route.modelId);
      open = undefined;
    };
    for await (const part of models.stream(call)) {
      if (part.type === 'reasoning' || part.type === 'response') {
        if (open !== part.type) close();
        open = part.type;
        text[part.type] += part.text;
        listener.fragment?.(part.type, part.text, models.route.modelId);
      } else if (part.type === 'tool-call') {
        close();
        toolCalls.push(part.toolCall);
      } else if (part.type === 'finish') {
        close();
        return { ...text, toolCalls, responseMessages: part.responseMessages, usage: part.usage, stopReason: part.stopReason };
      }
    }
    throw new WaggleException('provider_error', { detail: 'provider_stream_unfinished' });
  };
}
