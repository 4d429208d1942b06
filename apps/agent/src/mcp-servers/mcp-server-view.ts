import { MCP_MASKED_HEADER_VALUE, type McpServerView, type McpToolView } from '@waggle/contracts';
import type { McpToolSnapshot } from '@waggle/mcp';
import type { McpServerEntity } from './entities/mcp-server.entity';

/** A tool snapshot in the API's field names. */
export function toMcpToolView(tool: McpToolSnapshot): McpToolView {
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { output_schema: tool.outputSchema }),
  };
}

/** A server as the API answers it: each stored header name with a masked value, never the value. */
export function toMcpServerView(server: McpServerEntity, headerNames: string[]): McpServerView {
  return {
    id: server.id,
    name: server.name,
    url: server.url,
    headers: Object.fromEntries(headerNames.map((name) => [name, MCP_MASKED_HEADER_VALUE])),
    timeout_ms: server.timeoutMs,
    enabled: server.enabled,
    tools: server.approvedTools.map(toMcpToolView),
    tools_hash: server.approvedHash,
    tools_approved_at: server.approvedAt?.toISOString() ?? null,
    created_at: server.createdAt.toISOString(),
    updated_at: server.updatedAt.toISOString(),
  };
}
