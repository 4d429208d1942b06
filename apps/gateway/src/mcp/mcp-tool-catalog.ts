import { Injectable, Logger } from '@nestjs/common';
import {
  AgentPatterns,
  InvocationPatterns,
  KnowledgeBasePatterns,
  MCP_TOOL_KINDS,
  SEARCH_CHUNK_LIMIT,
  send,
  type KnowledgeBaseRecord,
  type McpObjectSchema,
  type McpToolDescriptor,
  type McpToolKind,
  type McpToolTarget,
} from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';

/** What a served tool runs: a published artifact, or the workspace's knowledge base search. */
export type ServedToolTarget = McpToolTarget | { kind: 'knowledge_base' };

/** One tool of a workspace's MCP server, as tools/list shows it and tools/call runs it. */
export interface ServedTool extends Omit<McpToolDescriptor, 'target'> {
  target: ServedToolTarget;
}

/** The knowledge base search's tool name (decisions: one `knowledge_search` tool). */
export const KNOWLEDGE_SEARCH_TOOL = 'knowledge_search';
/** How many knowledge bases its description names; the rest are still searchable by id. */
const KNOWLEDGE_BASES_DESCRIBED = 20;

const KNOWLEDGE_SEARCH_INPUT: McpObjectSchema = {
  type: 'object',
  properties: {
    knowledge_base: { type: 'string', description: 'The id of the knowledge base to search (its description lists them)' },
    query: { type: 'string', minLength: 1, maxLength: 10_000, description: 'What to look for' },
    top_k: {
      type: 'integer',
      minimum: SEARCH_CHUNK_LIMIT.min,
      maximum: SEARCH_CHUNK_LIMIT.max,
      description: "How many passages to answer at most; the knowledge base's own setting when absent",
    },
  },
  required: ['knowledge_base', 'query'],
  additionalProperties: false,
};

const KNOWLEDGE_SEARCH_OUTPUT: McpObjectSchema = {
  type: 'object',
  properties: {
    search_type: { type: 'string' },
    chunks: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          knowledge_base_item_id: { type: 'string' },
          item_name: { type: 'string' },
          content: { type: 'string' },
          score: { type: 'number' },
          position: { type: 'integer' },
        },
        required: ['knowledge_base_item_id', 'item_name', 'content', 'score', 'position'],
      },
    },
  },
  required: ['search_type', 'chunks'],
};

/** The one `knowledge_search` tool over a workspace's knowledge bases, which its description names. */
export function knowledgeSearchTool(knowledgeBases: readonly KnowledgeBaseRecord[]): ServedTool {
  const named = knowledgeBases
    .slice(0, KNOWLEDGE_BASES_DESCRIBED)
    .map((base) => `${base.id} (${base.name}${base.description ? `: ${base.description.slice(0, 200)}` : ''})`);
  const more = knowledgeBases.length - named.length;
  return {
    name: KNOWLEDGE_SEARCH_TOOL,
    description:
      `Searches one of the workspace's knowledge bases and answers the passages that match the query best. ` +
      `knowledge_base is the id of one of: ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`,
    input_schema: KNOWLEDGE_SEARCH_INPUT,
    output_schema: KNOWLEDGE_SEARCH_OUTPUT,
    target: { kind: 'knowledge_base' },
  };
}

const KIND_ORDER: Readonly<Record<McpToolKind, number>> = Object.fromEntries(MCP_TOOL_KINDS.map((kind, index) => [kind, index])) as Record<
  McpToolKind,
  number
>;

/** The stable order of a tool list (decisions): by kind (prompts, workflows, agents, knowledge bases), then by name. */
export function byKindThenName(a: ServedTool, b: ServedTool): number {
  const kinds = KIND_ORDER[a.target.kind] - KIND_ORDER[b.target.kind];
  if (kinds !== 0) return kinds;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The tools of a workspace's MCP server (the spec's decisions, MCP, "exposed tools"), gathered
 * with one request to each owning service: its published prompt and workflow variants
 * (invocation), its published agents (agent), and, when it has a knowledge base, the
 * `knowledge_search` tool. Each service keeps its own names unique; a name two services use is
 * served by the first in the stable order, and the clash is logged.
 */
@Injectable()
export class McpToolCatalog {
  private readonly logger = new Logger(McpToolCatalog.name);

  constructor(private readonly rpc: NatsRpcClient) {}

  async list(workspaceId: string): Promise<ServedTool[]> {
    const request = { workspace_id: workspaceId };
    const [variants, agents, knowledgeBases] = await Promise.all([
      send(this.rpc, InvocationPatterns.listMcpTools, request),
      send(this.rpc, AgentPatterns.listMcpTools, request),
      send(this.rpc, KnowledgeBasePatterns.listKnowledgeBases, request),
    ]);
    const tools: ServedTool[] = [...variants, ...agents];
    if (knowledgeBases.length > 0) tools.push(knowledgeSearchTool(knowledgeBases));
    tools.sort(byKindThenName);
    const served = new Map<string, ServedTool>();
    for (const tool of tools) {
      const first = served.get(tool.name);
      if (!first) served.set(tool.name, tool);
      else
        this.logger.warn(
          { workspace_id: workspaceId, tool: tool.name, served: first.target.kind, hidden: tool.target.kind },
          'two published artifacts of a workspace share an MCP tool name: the first in the list order is served',
        );
    }
    return [...served.values()];
  }
}
