import type { DocumentReader } from '@waggle/documents';
import { McpConnectionError, type McpToolResult } from '@waggle/mcp';
import type { McpToolSet } from '../mcp-tools/mcp-tool-offer';
import { KNOWLEDGE_SEARCH_TOOL_NAME, mcpObservation, runTools, type KnowledgeSearcher, type ToolOutcome } from './agent-tools';

describe('runTools', () => {
  const reader = { read: jest.fn() } as unknown as DocumentReader;
  const signal = new AbortController().signal;

  function searcher(outcome: ToolOutcome): KnowledgeSearcher & { queries: string[] } {
    const queries: string[] = [];
    return {
      queries,
      search: (query) => {
        queries.push(query);
        return Promise.resolve(outcome);
      },
    };
  }

  it('offers knowledge_search only to an agent with knowledge bases, typed knowledge_base in the stream', () => {
    expect(runTools(reader, []).definitions).toEqual([]);
    const tools = runTools(reader, [], searcher({ observation: {}, isError: false }));
    expect(tools.definitions.map((definition) => definition.name)).toEqual([KNOWLEDGE_SEARCH_TOOL_NAME]);
    expect(tools.typeOf(KNOWLEDGE_SEARCH_TOOL_NAME)).toBe('knowledge_base');
    expect(tools.typeOf('read_file')).toBe('system');
  });

  it('runs a search with the query the model sent and answers its observation', async () => {
    const knowledge = searcher({ observation: { query: 'q', results: [{ content: 'passage' }] }, isError: false });
    const tools = runTools(reader, [], knowledge);
    const outcome = await tools.run({ toolCallId: 'c1', toolName: KNOWLEDGE_SEARCH_TOOL_NAME, input: { query: 'refund policy' } }, signal);
    expect(knowledge.queries).toEqual(['refund policy']);
    expect(outcome).toEqual({ observation: { query: 'q', results: [{ content: 'passage' }] }, isError: false });
  });

  it.each([[{}], [{ query: '  ' }], [{ query: 42 }], [null]])(
    'answers an error observation, without searching, for the input %j',
    async (input) => {
      const knowledge = searcher({ observation: {}, isError: false });
      const outcome = await runTools(reader, [], knowledge).run({ toolCallId: 'c1', toolName: KNOWLEDGE_SEARCH_TOOL_NAME, input }, signal);
      expect(outcome.isError).toBe(true);
      expect(knowledge.queries).toEqual([]);
    },
  );

  it('refuses knowledge_search when the agent has no knowledge bases', async () => {
    const outcome = await runTools(reader, []).run(
      { toolCallId: 'c1', toolName: KNOWLEDGE_SEARCH_TOOL_NAME, input: { query: 'x' } },
      signal,
    );
    expect(outcome.isError).toBe(true);
  });

  /** One offered MCP tool, `docs__echo`, answering `answer` (or failing with it); the calls it got. */
  function mcpTools(answer: McpToolResult | Error): McpToolSet & { calls: Array<[string, Record<string, unknown>]> } {
    const calls: Array<[string, Record<string, unknown>]> = [];
    return {
      calls,
      definitions: [{ name: 'docs__echo', description: 'Echoes', inputSchema: { type: 'object' } as never }],
      has: (name) => name === 'docs__echo',
      call: (name, args) => {
        calls.push([name, args]);
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
      },
    };
  }
  const echo = (input: unknown) => ({ toolCallId: 'c1', toolName: 'docs__echo', input });

  it('offers the MCP tools after the built-in ones, typed mcp in the stream', () => {
    const tools = runTools(
      reader,
      [],
      searcher({ observation: {}, isError: false }),
      mcpTools({ isError: false, text: '', truncated: false }),
    );
    expect(tools.definitions.map((definition) => definition.name)).toEqual([KNOWLEDGE_SEARCH_TOOL_NAME, 'docs__echo']);
    expect(tools.typeOf('docs__echo')).toBe('mcp');
    expect(tools.typeOf('docs__other')).toBe('system');
  });

  it("calls an MCP tool with the model's input; the observation is its structured content, else its text", async () => {
    const structured = mcpTools({ isError: false, text: '{"sum":3}', structuredContent: { sum: 3 }, truncated: false });
    expect(await runTools(reader, [], undefined, structured).run(echo({ a: 1, b: 2 }), signal)).toEqual({
      observation: { sum: 3 },
      isError: false,
    });
    expect(structured.calls).toEqual([['docs__echo', { a: 1, b: 2 }]]);
    const text = mcpTools({ isError: false, text: 'hello', truncated: false });
    expect(await runTools(reader, [], undefined, text).run(echo({ text: 'hello' }), signal)).toEqual({
      observation: 'hello',
      isError: false,
    });
  });

  it("answers a tool's error result, a server that cannot be reached and an input that is not an object as error observations", async () => {
    const failing = mcpTools({ isError: true, text: 'boom', truncated: false });
    expect(await runTools(reader, [], undefined, failing).run(echo({}), signal)).toEqual({ observation: { error: 'boom' }, isError: true });
    const down = mcpTools(new McpConnectionError('http_status', 'the MCP server at https://mcp.test answered HTTP 503', { status: 503 }));
    expect(await runTools(reader, [], undefined, down).run(echo({}), signal)).toEqual({
      observation: { error: 'The tool docs__echo could not be called: the MCP server at https://mcp.test answered HTTP 503' },
      isError: true,
    });
    const tools = mcpTools({ isError: false, text: '', truncated: false });
    expect(await runTools(reader, [], undefined, tools).run(echo(['x']), signal)).toMatchObject({ isError: true });
    expect(await runTools(reader, [], undefined, tools).run({ ...echo({}), invalid: true }, signal)).toMatchObject({ isError: true });
    expect(tools.calls).toEqual([]);
  });

  it('rethrows the reason of an abort that stopped an MCP call (a cancel of the run)', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    controller.abort(reason);
    const tools = mcpTools(new Error('aborted'));
    await expect(runTools(reader, [], undefined, tools).run(echo({}), controller.signal)).rejects.toBe(reason);
  });

  it('keeps a structured content as it is and a text as a string in the observation (mcpObservation)', () => {
    expect(mcpObservation({ isError: false, text: 'x', structuredContent: { a: [1] }, truncated: false })).toEqual({
      observation: { a: [1] },
      isError: false,
    });
    expect(mcpObservation({ isError: false, text: 'cut…', truncated: true })).toEqual({ observation: 'cut…', isError: false });
  });
});
