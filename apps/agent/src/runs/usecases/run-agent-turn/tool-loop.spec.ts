import type { PromptCall, SpecUsage, ToolCall } from '@waggle/providers';
import type { RunTools } from '../../agent-tools';
import { ToolLoop, type ToolLoopInput, type TurnOutcome } from './tool-loop';

const usage = (tokens: number): SpecUsage => ({
  prompt_tokens: { total_tokens: tokens, cached_tokens: 0 },
  completion_tokens: { total_tokens: tokens, reasoning_tokens: 0 },
  total_tokens: 2 * tokens,
});

const call = (id: string, input: unknown = { query: id }): ToolCall => ({ toolCallId: id, toolName: 'lookup', input });

/** A model turn that answers `response` and asks for these tool calls. */
const turn = (response: string, toolCalls: ToolCall[] = [], tokens = 1): TurnOutcome => ({
  response,
  reasoning: '',
  toolCalls,
  responseMessages: [],
  usage: usage(tokens),
  stopReason: toolCalls.length > 0 ? 'tool_calls' : 'completed',
});

/** The model's turns in order, and what each call offered (its tool choice). */
function scripted(...turns: TurnOutcome[]) {
  const offered: Array<PromptCall['toolChoice']> = [];
  return {
    offered,
    model: (prompt: PromptCall) => {
      offered.push(prompt.toolChoice);
      const next = turns.shift();
      if (!next) throw new Error('the model was called once too often');
      return Promise.resolve(next);
    },
  };
}

/** One tool, `lookup`, answering `{ found: <input.query> }`; the calls it ran. */
function lookupTool() {
  const ran: string[] = [];
  const tools: RunTools = {
    definitions: [{ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } as never }],
    typeOf: () => 'system',
    run: (toolCall) => {
      ran.push(toolCall.toolCallId);
      return Promise.resolve({ observation: { found: (toolCall.input as { query: string }).query }, isError: false });
    },
  };
  return { ran, tools };
}

const input = (tools: RunTools, extra: Partial<ToolLoopInput> = {}): ToolLoopInput => ({
  messages: [{ role: 'user', content: 'hello' }],
  params: {},
  tools,
  toolChoice: 'auto',
  maxToolCalls: 5,
  ...extra,
});

describe('ToolLoop', () => {
  it('runs the tool calls until the model answers, telling the listener of each, with the usage of every turn', async () => {
    const { ran, tools } = lookupTool();
    const model = scripted(turn('Looking. ', [call('a'), call('b')], 1), turn('Found both.', [], 2));
    const told: string[] = [];
    const result = await new ToolLoop(input(tools, { toolChoice: 'required' })).run(
      model.model,
      { tool: (record, toolInput, toolType) => told.push(`${record.toolName}:${JSON.stringify(toolInput)}:${toolType}`) },
      undefined,
    );
    expect(ran).toEqual(['a', 'b']);
    expect(told).toEqual(['lookup:{"query":"a"}:system', 'lookup:{"query":"b"}:system']);
    // `required` holds for the first turn only.
    expect(model.offered).toEqual(['required', 'auto']);
    expect(result).toMatchObject({ response: 'Looking. Found both.', stopReason: 'completed', usage: usage(3) });
    expect(result.toolCalls.map(({ toolCallId, observation }) => [toolCallId, observation])).toEqual([
      ['a', '{"found":"a"}'],
      ['b', '{"found":"b"}'],
    ]);
  });

  it('answers the calls past the cap without running them, then offers the tools with choice none', async () => {
    const { ran, tools } = lookupTool();
    const model = scripted(turn('', [call('a'), call('b')]), turn('Done.'));
    const result = await new ToolLoop(input(tools, { maxToolCalls: 1 })).run(model.model, {}, undefined);
    expect(ran).toEqual(['a']);
    expect(result.toolCalls[1]).toMatchObject({
      toolCallId: 'b',
      observation: '{"error":"The limit of 1 tool calls for this run was reached."}',
    });
    expect(model.offered).toEqual(['auto', 'none']);
  });

  it('answers with the last turn alone when the agent has a response format', async () => {
    const { tools } = lookupTool();
    const model = scripted(turn('Let me look. ', [call('a')]), turn('{"answer":1}'));
    const result = await new ToolLoop(input(tools, { params: { responseFormat: { type: 'object' } as never } })).run(
      model.model,
      {},
      undefined,
    );
    expect(result.response).toBe('{"answer":1}');
  });

  it('stops at an abort between a tool call and the next model turn, keeping the usage of the turns it finished', async () => {
    const controller = new AbortController();
    const { tools } = lookupTool();
    const stopping: RunTools = {
      ...tools,
      run: async (toolCall, signal) => {
        const outcome = await tools.run(toolCall, signal);
        controller.abort(new Error('cancelled'));
        return outcome;
      },
    };
    const model = scripted(turn('', [call('a')], 4), turn('never'));
    const loop = new ToolLoop(input(stopping));
    await expect(loop.run(model.model, {}, controller.signal)).rejects.toThrow('cancelled');
    expect(model.offered).toHaveLength(1);
    expect(loop.usage).toEqual(usage(4));
  });
});
