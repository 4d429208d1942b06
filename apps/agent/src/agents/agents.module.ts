import { Module } from '@nestjs/common';
import { McpServersModule } from '../mcp-servers/mcp-servers.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AgentKnowledgeBaseLinks } from './agent-knowledge-bases.service';
import { AgentModels } from './agent-models';
import { AgentWebhookSecrets } from './agent-webhook-secrets.service';
import { AgentsController } from './agents.controller';
import { AgentsRepository } from './agents.repository';
import { AgentsService } from './agents.service';
import { RunnableAgents } from './runnable-agents';

/**
 * Agents: CRUD over NATS, the catalog check of their model and of the MCP servers they name,
 * their attached knowledge bases and their webhook secrets. Exports what runs an agent needs: RunnableAgents, the agents
 * as runs read them (kept in memory, forgotten on every change).
 */
@Module({
  imports: [WebhooksModule, McpServersModule],
  controllers: [AgentsController],
  providers: [AgentsRepository, AgentsService, AgentModels, AgentWebhookSecrets, AgentKnowledgeBaseLinks, RunnableAgents],
  exports: [RunnableAgents],
})
export class AgentsModule {}
