import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { McpServersController } from './mcp-servers.controller';

/** The workspace's MCP servers (private, documented), owned by the agent service. */
@Module({ imports: [AuthModule], controllers: [McpServersController] })
export class McpServersModule {}
