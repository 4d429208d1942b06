import type { McpSelection } from '@waggle/contracts';
import { secretMasker, toolDefinitionHash, type McpToolNames, type McpToolResult, type McpToolSnapshot } from '@waggle/mcp';
import type { ToolDefinition } from '@waggle/providers';

/** What a run offers of its agent's MCP servers, and how it calls them. */
export interface McpToolSet {
  definitions: ToolDefinition[];
  /** Whether `modelName` is one of the offered tools. */
  has(modelName: string): boolean;
  /** Calls the offered tool; a server that cannot be reached throws McpConnectionError, an abort of `signal` its reason. */
  call(modelName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpToolResult>;
}

/** The spec's decisions, MCP: at most 64 MCP tools per run. */
export const MAX_MCP_TOOLS_PER_RUN = 64;

/**
 * Why a tool the agent names is not offered (nor called by a step): the server lists it but it is
 * not in the approved snapshot (`unapproved`), its live definition differs from the approved one
 * (`changed`), the server no longer lists it (`gone`), or the run already has 64 tools (`over_limit`).
 */
export type WithheldReason = 'unapproved' | 'changed' | 'gone' | 'over_limit';

/**
 * Whether the live tool `name` may be called: its approved entry exists and has the same definition
 * hash as what the server lists now. Undefined when it may, else why not.
 */
export function approvalProblem(
  name: string,
  approved: readonly McpToolSnapshot[],
  live: readonly McpToolSnapshot[],
): Exclude<WithheldReason, 'over_limit'> | undefined {
  const listed = live.find((tool) => tool.name === name);
  const granted = approved.find((tool) => tool.name === name);
  if (!listed) return 'gone';
  if (!granted) return 'unapproved';
  return toolDefinitionHash(listed) === toolDefinitionHash(granted) ? undefined : 'changed';
}

/** One server of an agent's `mcp`, as a run found it: what the agent selects, what was approved, what the server lists now. */
export interface ListedMcpServer {
  selection: McpSelection;
  approved: readonly McpToolSnapshot[];
  live: readonly McpToolSnapshot[];
}

/** A tool a run offers: its server and its approved definition (what the model is shown). */
export interface OfferedMcpTool {
  serverId: string;
  tool: McpToolSnapshot;
}

export interface WithheldMcpTool {
  serverId: string;
  toolName: string;
  reason: WithheldReason;
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The MCP tools a run offers (the spec's decisions, MCP): of each server in the agent's order, the
 * selected tools in name order (`"*"`: every tool the server lists now) whose live definition is
 * the approved one; at most MAX_MCP_TOOLS_PER_RUN. Everything else is withheld with its reason,
 * for the run to log. What a tool's description says has no say in which tools exist.
 */
export function offerMcpTools(
  servers: readonly ListedMcpServer[],
  limit = MAX_MCP_TOOLS_PER_RUN,
): { offered: OfferedMcpTool[]; withheld: WithheldMcpTool[] } {
  const offered: OfferedMcpTool[] = [];
  const withheld: WithheldMcpTool[] = [];
  for (const { selection, approved, live } of servers) {
    const serverId = selection.server;
    const names = selection.tools === '*' ? live.map((tool) => tool.name) : selection.tools;
    for (const toolName of [...new Set(names)].sort(byName)) {
      const problem = approvalProblem(toolName, approved, live);
      if (problem) withheld.push({ serverId, toolName, reason: problem });
      else if (offered.length >= limit) withheld.push({ serverId, toolName, reason: 'over_limit' });
      else offered.push({ serverId, tool: approved.find((tool) => tool.name === toolName) as McpToolSnapshot });
    }
  }
  return { offered, withheld };
}

/**
 * The tool definitions a model is shown for the offered tools, named `<server>__<tool>`
 * (`names` maps them back), each with its approved description (untrusted text, shown as it is).
 */
export function mcpToolDefinitions(offered: readonly OfferedMcpTool[], names: McpToolNames): ToolDefinition[] {
  return offered.map(({ serverId, tool }) => ({
    name: names.add(serverId, tool.name),
    description: tool.description ?? tool.title ?? '',
    inputSchema: tool.inputSchema as ToolDefinition['inputSchema'],
  }));
}

/**
 * The result with every configured header value of its server masked: a server that echoes what
 * it was sent (a debugging tool, a careless error message) must not carry its secret into an
 * answer, a ledger record or a step's output.
 */
export function maskedToolResult(result: McpToolResult, secrets: readonly string[]): McpToolResult {
  // A credential is often echoed without its scheme (`Bearer <token>`): the token alone is masked too.
  if (!secrets.some((secret) => secret.length >= 8)) return result;
  const mask = secretMasker(
    secrets.flatMap((secret) => [secret, secret.replace(/^\S+\s+/, '')]),
    8,
  );
  const deep = (value: unknown): unknown => {
    if (typeof value === 'string') return mask(value);
    if (Array.isArray(value)) return value.map(deep);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [mask(key), deep(item)]));
    return value;
  };
  return {
    ...result,
    text: mask(result.text),
    ...(result.structuredContent && { structuredContent: deep(result.structuredContent) as Record<string, unknown> }),
  };
}
