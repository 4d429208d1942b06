import type { DocumentReader } from '@waggle/documents';
import { KNOWLEDGE_SEARCH_TOOL_NAME, runTools, type KnowledgeSearcher, type ToolOutcome } from './agent-tools';

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
});
