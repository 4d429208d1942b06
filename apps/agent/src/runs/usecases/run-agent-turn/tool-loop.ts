import type { AgentToolCallView } from '@waggle/contracts';
import {
  addUsage,
  toolResultsMessage,
  ZERO_USAGE,
  type CompletionResult,
  type PromptCall,
  type PromptMessage,
  type PromptParams,
  type SpecUsage,
  type StopReason,
  type ToolCall,
  type ToolChoice,
  type ToolResult,
} from '@waggle/providers';
import { inSpan, markSpanFailed } from '@waggle/telemetry';
import type { ToolCallRecord } from '../../../threads/thread-turns';
import type { RunTools, ToolOutcome } from '../../agent-tools';

/** One model turn's result, whole or streamed (its cost is summed by the run's ModelRun as it ends). */
export type TurnOutcome = Omit<CompletionResult, 'model' | 'attempts' | 'cost'>;

/** One model turn: the call answered whole, or streamed to a listener as it comes. */
export type ModelTurn = (call: PromptCall) => Promise<TurnOutcome>;

/** What a run reports as it goes (a streamed run's events); `model` is the model answering. */
export interface TurnListener {
  fragment?(kind: 'reasoning' | 'response', text: string, model: string): void;
  /** A text kind ended (another kind, a tool call or the turn's end follows). */
  textDone?(kind: 'reasoning' | 'response', model: string): void;
  tool?(record: ToolCallRecord, input: unknown, toolType: string): void;
}

/** What the loop starts from: the conversation, the model's settings and the run's tools. */
export interface ToolLoopInput {
  messages: PromptMessage[];
  params: PromptParams;
  tools: RunTools;
  /** The agent's `tool_choice` (`auto` when it has none). */
  toolChoice: ToolChoice;
  /** Tool calls the run may make in all. */
  maxToolCalls: number;
}

/** The answer the loop ended with. */
export interface LoopResult {
  response: string;
  reasoning: string;
  usage: SpecUsage;
  stopReason: StopReason;
  toolCalls: ToolCallRecord[];
}

const json = (value: unknown) => JSON.stringify(value ?? null);

/** decisions: a tool call as a run's answer and its ledger record show it (input and observation as JSON strings). */
export function toolCallView(call: ToolCallRecord): AgentToolCallView {
  return { tool_name: call.toolName, tool_input: json(call.input), observation: call.observation };
}

/**
 * Runs one tool call in its span (GenAI `execute_tool`), active while the tool runs so what it
 * calls (knowledge_search's NATS request) is its child. A tool's error observation (the model
 * reads it and goes on) gives the span ERROR status, as a thrown failure does.
 */
function runTool(tools: RunTools, call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.toolName,
    'gen_ai.tool.call.id': call.toolCallId,
    // Waggle's own tools are functions; a workspace MCP server's tool calls an outside service.
    'gen_ai.tool.type': tools.typeOf(call.toolName) === 'mcp' ? 'extension' : 'function',
  };
  return inSpan(`execute_tool ${call.toolName}`, attributes, async (span) => {
    const outcome = await tools.run(call, signal);
    if (outcome.isError) {
      span.setAttribute('error.type', 'tool_error');
      markSpanFailed(span, undefined);
    }
    return outcome;
  });
}

/**
 * Model turns with the run's tools until the model answers. Tools are offered while the run
 * has calls left; a turn past the cap (or an agent with `tool_choice: none`) offers them with
 * choice `none`, so the model answers in text. `required` applies to the first turn only,
 * `auto` after it. An abort stops the loop between model turns and tool calls.
 */
export class ToolLoop {
  /** The usage of the model turns finished so far: a stopped run's partial usage. */
  usage: SpecUsage = ZERO_USAGE;

  constructor(private readonly input: ToolLoopInput) {}

  async run(turn: ModelTurn, listener: TurnListener, signal: AbortSignal | undefined): Promise<LoopResult> {
    const { tools, params, maxToolCalls } = this.input;
    const definitions = tools.definitions;
    let messages = this.input.messages;
    let choice = this.input.toolChoice;
    const records: ToolCallRecord[] = [];
    const response: string[] = [];
    const reasoning: string[] = [];
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const mayCall = definitions.length > 0 && choice !== 'none' && records.length < maxToolCalls;
      const outcome = await turn({
        messages,
        params,
        ...(definitions.length > 0 && { tools: definitions, toolChoice: mayCall ? choice : 'none' }),
        abortSignal: signal,
      });
      this.usage = addUsage(this.usage, outcome.usage);
      response.push(outcome.response);
      reasoning.push(outcome.reasoning);
      if (!mayCall || outcome.toolCalls.length === 0) {
        // With a response format the answer is the last turn's JSON, not the text said between tool calls.
        const answer = params.responseFormat ? outcome.response : response.join('');
        return { response: answer, reasoning: reasoning.join(''), usage: this.usage, stopReason: outcome.stopReason, toolCalls: records };
      }
      const results: ToolResult[] = [];
      for (const call of outcome.toolCalls) {
        const started = Date.now();
        // Calls past the cap in the same turn are answered, not run.
        const { observation, isError } =
          records.length < maxToolCalls
            ? await runTool(tools, call, signal ?? new AbortController().signal)
            : { observation: { error: `The limit of ${maxToolCalls} tool calls for this run was reached.` }, isError: true };
        if (signal?.aborted) throw signal.reason;
        const record: ToolCallRecord = {
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: call.input,
          observation: json(observation),
          durationMs: Date.now() - started,
        };
        records.push(record);
        listener.tool?.(record, call.input, tools.typeOf(call.toolName));
        results.push({ toolCallId: call.toolCallId, toolName: call.toolName, output: observation, isError });
      }
      messages = [...messages, ...outcome.responseMessages, toolResultsMessage(results)];
      if (choice === 'required') choice = 'auto';
    }
  }
}
