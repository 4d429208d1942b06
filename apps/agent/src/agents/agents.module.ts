import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AgentKnowledgeBaseLinks } from './agent-knowledge-bases.service';
import { AgentModels } from './agent-models';
import { AgentWebhookSecrets } from './agent-webhook-secrets.service';
import { AgentsController } from './agents.controller';
import { AgentsRepository } from './agents.repository';
import { AgentsService } from './agents.service';
import { AGENT_ENTITIES } from './entities';

/**
 * Agents: CRUD over NATS, the catalog check of their model, and their webhook secrets.
 * Exports what runs an agent (invoke, webhook triggers) needs: AgentsService.getActive and
 * the repository, and AgentWebhookSecrets.
 */
@Module({
  imports: [TypeOrmModule.forFeature(AGENT_ENTITIES), WebhooksModule],
  controllers: [AgentsController],
  providers: [AgentsRepository, AgentsService, AgentModels, AgentWebhookSecrets, AgentKnowledgeBaseLinks],
  exports: [AgentsRepository, AgentsService, AgentWebhookSecrets],
})
export class AgentsModule {}
