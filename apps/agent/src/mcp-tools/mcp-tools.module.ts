import { Module } from '@nestjs/common';
import { McpServersModule } from '../mcp-servers/mcp-servers.module';
import { WorkspaceMcpTools } from './mcp-tools.service';

/**
 * The tools of a workspace's MCP servers as agent runs offer them and workflow `mcp_tool` steps
 * call them (the spec's decisions, MCP: agents and steps); the runs feature uses them.
 */
@Module({
  imports: [McpServersModule],
  providers: [WorkspaceMcpTools],
  exports: [WorkspaceMcpTools],
})
export class McpToolsModule {}
