import { WaggleException } from '@waggle/errors';
import { jsonSchema, tool, type ToolModelMessage, type ToolSet } from 'ai';
import type { ToolCall, ToolChoice, ToolDefinition, ToolResult } from './types';

/**
 * The SDK's tool set for the definitions. Tools have no `execute`, so the SDK answers the
 * model's calls instead of running them. An agent passes the same definitions turn after
 * turn, so each array is converted once.
 */
const toolSets = new WeakMap<readonly ToolDefinition[], ToolSet>();

export function toToolSet(definitions: readonly ToolDefinition[]): ToolSet {
  const cached = toolSets.get(definitions);
  if (cached) return cached;
  const set: ToolSet = {};
  for (const definition of definitions) {
    set[definition.name] = tool({
      ...(definition.description !== undefined && { description: definition.description }),
      inputSchema: jsonSchema(definition.inputSchema),
    });
  }
  toolSets.set(definitions, set);
  return set;
}

/** The choice as the SDK takes it; naming a tool that is not offered is the caller's mistake. */
export function toToolChoice(choice: ToolChoice | undefined, definitions: readonly ToolDefinition[]): ToolChoice | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  if (!definitions.some((definition) => definition.name === choice.toolName)) {
    throw new WaggleException('validation_error', { detail: 'tool_choice_unknown', params: { tool: choice.toolName } });
  }
  return choice;
}

/** A tool call the SDK parsed, without its bookkeeping fields. */
export function toToolCall(call: { toolCallId: string; toolName: string; input: unknown; invalid?: boolean }): ToolCall {
  return { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, ...(call.invalid === true && { invalid: true }) };
}

/** The message answering a turn's tool calls, to append after the turn's `responseMessages`. */
export function toolResultsMessage(results: readonly ToolResult[]): ToolModelMessage {
  return {
    role: 'tool',
    content: results.map(({ toolCallId, toolName, output, isError }) => ({
      type: 'tool-result' as const,
      toolCallId,
      toolName,
      output:
        typeof output === 'string'
          ? { type: isError ? ('error-text' as const) : ('text' as const), value: output }
          : { type: isError ? ('error-json' as const) : ('json' as const), value: output },
    })),
  };
}
