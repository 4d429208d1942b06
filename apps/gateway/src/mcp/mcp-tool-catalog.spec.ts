import {
  AgentPatterns,
  InvocationPatterns,
  KnowledgeBasePatterns,
  type KnowledgeBaseRecord,
  type McpToolDescriptor,
  type RpcCallContext,
  type RpcTransport,
} from '@waggle/contracts';
import { Logger } from '@nestjs/common';
import type { NatsRpcClient } from '@waggle/platform';
import { of, type Observable } from 'rxjs';
import { KNOWLEDGE_SEARCH_TOOL, McpToolCatalog } from './mcp-tool-catalog';

const schema = { type: 'object' as const };
const tool = (name: string, target: McpToolDescriptor['target']): McpToolDescriptor => ({
  name,
  description: name,
  input_schema: schema,
  output_schema: null,
  target,
});
const prompt = (name: string) => tool(name, { kind: 'prompt', deployment: 'd', variant: name });
const workflow = (name: string) => tool(name, { kind: 'workflow', deployment: 'w', variant: name });
const agent = (name: string) => tool(name, { kind: 'agent', agent_id: name });

/** Each service's answer, by pattern; every request is recorded. */
class ServicesTransport implements RpcTransport {
  readonly asked: Array<{ pattern: string; payload: unknown }> = [];
  constructor(private readonly answers: Record<string, unknown>) {}
  request(pattern: string, payload: unknown, _context: RpcCallContext): Observable<unknown> {
    this.asked.push({ pattern, payload });
    return of(this.answers[pattern]);
  }
}

const catalogOf = (answers: {
  variants: McpToolDescriptor[];
  agents: McpToolDescriptor[];
  knowledgeBases: Partial<KnowledgeBaseRecord>[];
}) => {
  const transport = new ServicesTransport({
    [InvocationPatterns.listMcpTools]: answers.variants,
    [AgentPatterns.listMcpTools]: answers.agents,
    [KnowledgeBasePatterns.listKnowledgeBases]: answers.knowledgeBases,
  });
  return { transport, catalog: new McpToolCatalog(transport as unknown as NatsRpcClient) };
};

describe('McpToolCatalog', () => {
  it('asks each owning service once and lists by kind (prompts, workflows, agents, knowledge bases), then by name', async () => {
    const { transport, catalog } = catalogOf({
      variants: [workflow('b_flow'), prompt('zeta'), prompt('alpha'), workflow('a_flow')],
      agents: [agent('agent_b'), agent('agent_a')],
      knowledgeBases: [{ id: 'kb-1', name: 'Policies', description: null }],
    });
    const tools = await catalog.list('ws');
    expect(tools.map((served) => served.name)).toEqual(['alpha', 'zeta', 'a_flow', 'b_flow', 'agent_a', 'agent_b', KNOWLEDGE_SEARCH_TOOL]);
    expect(transport.asked.map(({ pattern }) => pattern).sort()).toEqual(
      [InvocationPatterns.listMcpTools, AgentPatterns.listMcpTools, KnowledgeBasePatterns.listKnowledgeBases].sort(),
    );
    expect(transport.asked.every(({ payload }) => (payload as { workspace_id: string }).workspace_id === 'ws')).toBe(true);
  });

  it('lists knowledge_search only when the workspace has a knowledge base, naming them in its description', async () => {
    expect((await catalogOf({ variants: [], agents: [], knowledgeBases: [] }).catalog.list('ws')).map((served) => served.name)).toEqual([]);
    const bases = Array.from({ length: 22 }, (_, index) => ({
      id: `kb-${index}`,
      name: `Base ${index}`,
      description: index === 0 ? 'Refunds' : null,
    }));
    const [search] = await catalogOf({ variants: [], agents: [], knowledgeBases: bases }).catalog.list('ws');
    expect(search.target).toEqual({ kind: 'knowledge_base' });
    expect(search.description).toContain('kb-0 (Base 0: Refunds); kb-1 (Base 1)');
    expect(search.description).toContain('; and 2 more.');
    expect(search.description).not.toContain('kb-20');
  });

  it('serves the first of two tools that share a name across services, in the list order, and logs the clash', async () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { catalog } = catalogOf({
      variants: [workflow('shared'), prompt('other')],
      agents: [agent('shared'), agent(KNOWLEDGE_SEARCH_TOOL)],
      knowledgeBases: [{ id: 'kb', name: 'kb', description: null }],
    });
    const tools = await catalog.list('ws');
    expect(tools.map((served) => [served.name, served.target.kind])).toEqual([
      ['other', 'prompt'],
      ['shared', 'workflow'],
      [KNOWLEDGE_SEARCH_TOOL, 'agent'],
    ]);
    expect(warned.mock.calls.map(([fields]) => fields)).toEqual([
      { workspace_id: 'ws', tool: 'shared', served: 'workflow', hidden: 'agent' },
      { workspace_id: 'ws', tool: KNOWLEDGE_SEARCH_TOOL, served: 'agent', hidden: 'knowledge_base' },
    ]);
    warned.mockRestore();
  });
});
