import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { McpConnector } from '@waggle/mcp';
import { APP_ENV } from '@waggle/platform';
import type { AgentEnv } from '../config/agent.env';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { McpServersController } from './mcp-servers.controller';
import { McpServersRepository } from './mcp-servers.repository';
import { McpServersService } from './mcp-servers.service';
import { WorkspaceMcpServers } from './workspace-mcp-servers';

/**
 * The workspace's MCP servers (the spec's decisions, MCP): their registry over NATS, and
 * WorkspaceMcpServers and the McpConnector for what runs their tools. Headers are sealed with
 * the keyring of the agents' webhook secrets (WEBHOOK_SECRET_KEY); MCP_URL_ALLOWLIST says which
 * non-public hosts may be reached.
 */
@Module({
  imports: [WebhooksModule],
  controllers: [McpServersController],
  providers: [
    McpServersRepository,
    McpServersService,
    WorkspaceMcpServers,
    {
      provide: McpConnector,
      useFactory: (env: AgentEnv) => new McpConnector({ allowlist: env.MCP_URL_ALLOWLIST, allowlistSetting: 'MCP_URL_ALLOWLIST' }),
      inject: [APP_ENV],
    },
  ],
  exports: [WorkspaceMcpServers, McpConnector],
})
export class McpServersModule implements OnApplicationShutdown {
  constructor(@Inject(McpConnector) private readonly connector: McpConnector) {}

  async onApplicationShutdown(): Promise<void> {
    await this.connector.close();
  }
}
