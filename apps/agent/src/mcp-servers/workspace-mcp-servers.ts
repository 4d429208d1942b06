import { Injectable } from '@nestjs/common';
import type { McpServerConnection, McpToolSnapshot } from '@waggle/mcp';
import { McpServersService } from './mcp-servers.service';

/** A server as a run reaches it: the connection (headers opened) and what it may call. */
export type WorkspaceMcpServer = McpServerConnection & { approved: McpToolSnapshot[]; enabled: boolean };

/**
 * The workspace's MCP servers as the agent service's runs use them (agents' and workflow steps'
 * MCP tools): how to reach one, its approved tools and whether it is enabled. Scoped to the
 * workspace: another workspace's server is not found (404 resource_not_found) like an unknown one.
 */
@Injectable()
export class WorkspaceMcpServers {
  constructor(private readonly servers: McpServersService) {}

  connectionOf(workspaceId: string, serverId: string): Promise<WorkspaceMcpServer> {
    return this.servers.connection(workspaceId, serverId);
  }

  /** The ids among `serverIds` that name no server of the workspace (an agent's `mcp` may name only its servers). */
  async unregistered(workspaceId: string, serverIds: readonly string[]): Promise<string[]> {
    const registered = new Set((await this.servers.list(workspaceId)).map((server) => server.id));
    return serverIds.filter((id) => !registered.has(id));
  }
}
