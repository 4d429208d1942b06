import { Controller } from '@nestjs/common';
import { InvocationPatterns, WorkspaceIdRequest, type McpToolDescriptor } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { McpToolsService } from './mcp-tools.service';

/** The workspace's published prompt and workflow variants as MCP tools, for the gateway's MCP server. */
@Controller()
export class McpToolsController {
  constructor(private readonly tools: McpToolsService) {}

  @RpcHandler(InvocationPatterns.listMcpTools)
  list(request: WorkspaceIdRequest): Promise<McpToolDescriptor[]> {
    return this.tools.list(request.workspace_id);
  }
}
