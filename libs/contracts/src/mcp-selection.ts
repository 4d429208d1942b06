import { errorMessage, type ErrorDetail } from '@waggle/errors';
import { registerDecorator } from 'class-validator';
import { MAX_MCP_SERVERS_PER_WORKSPACE, MCP_SERVER_ID_FORMAT } from './mcp-servers';

/** Bounds of an agent's `mcp` (the spec's decisions, MCP: at most 20 servers per workspace, 100 tools per server). */
export const MCP_SELECTION_LIMITS = { servers: MAX_MCP_SERVERS_PER_WORKSPACE, tools: 100, toolNameLength: 128 } as const;

/** The MCP tools an agent offers its model: every tool of a server (`"*"`) or the ones named. */
export interface McpSelection {
  server: string;
  tools: string[] | '*';
}

function isToolName(value: unknown): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= MCP_SELECTION_LIMITS.toolNameLength;
}

/**
 * Why a value cannot be an agent's `mcp` (a message id naming the entry, rendered in the reader's
 * language), or undefined when it can: null, or at most 20 `{server, tools}` entries, each server
 * once, `tools` either "*" or 1 to 100 names. Whether each server is registered in the workspace
 * is the agent service's check.
 */
export function mcpSelectionProblem(value: unknown, property = 'mcp'): ErrorDetail | undefined {
  if (value === null) return undefined;
  if (!Array.isArray(value) || value.length > MCP_SELECTION_LIMITS.servers)
    return { detail: 'validation_mcp_not_list', params: { property, max: MCP_SELECTION_LIMITS.servers } };
  const seen = new Set<string>();
  for (const [index, entry] of value.entries()) {
    if (
      typeof entry !== 'object' ||
      entry === null ||
      Array.isArray(entry) ||
      !Object.keys(entry).every((key) => key === 'server' || key === 'tools')
    )
      return { detail: 'validation_mcp_entry', params: { property, index } };
    const { server, tools } = entry as { server?: unknown; tools?: unknown };
    if (typeof server !== 'string' || !MCP_SERVER_ID_FORMAT.test(server))
      return { detail: 'validation_mcp_server', params: { property, index } };
    if (seen.has(server)) return { detail: 'validation_mcp_server_repeated', params: { property, index, server } };
    seen.add(server);
    const listed = Array.isArray(tools) && tools.length >= 1 && tools.length <= MCP_SELECTION_LIMITS.tools && tools.every(isToolName);
    if (tools !== '*' && !listed)
      return {
        detail: 'validation_mcp_tools',
        params: { property, index, max: MCP_SELECTION_LIMITS.tools, length: MCP_SELECTION_LIMITS.toolNameLength },
      };
  }
  return undefined;
}

/** `mcp` of an agent: optional, null unsets it (mcpSelectionProblem says what is accepted). */
export function McpSelectionField(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isMcpSelection',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => value === undefined || mcpSelectionProblem(value, String(propertyName)) === undefined,
        defaultMessage: (args) =>
          errorMessage(
            mcpSelectionProblem(args?.value, String(propertyName)) ?? {
              detail: 'validation_mcp_not_list',
              params: { property: 'mcp', max: 20 },
            },
            'en',
          ),
      },
    });
}
