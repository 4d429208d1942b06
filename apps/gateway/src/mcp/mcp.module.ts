import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { McpController } from './mcp.controller';
import { McpCallsInFlight } from './mcp-calls-in-flight';
import { McpServerHandler } from './mcp-server';
import { McpToolCalls } from './mcp-tool-calls';
import { McpToolCatalog } from './mcp-tool-catalog';

/**
 * The workspace as an MCP server at `POST /v1/mcp` (the spec's decisions, MCP). Its edge
 * (mcp-edge.ts: Origin, CORS, the body's limit) is installed by bootstrap, and the exception
 * filter answers its refusals as JSON-RPC errors (mcp-errors.ts).
 */
@Module({
  imports: [AuthModule],
  controllers: [McpController],
  providers: [McpToolCatalog, McpToolCalls, McpCallsInFlight, McpServerHandler],
})
export class McpModule {}
