import { Body, Controller, Get, HttpCode, Param, Post, Put, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AgentPatterns, send, WebhookSecretRotation, type AgentKnowledgeBases, type AgentWebhookSecretView } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { SetAgentKnowledgeBasesBody } from './agent.dto';

/**
 * First-party management of an agent's webhook secret (the CLI's `agent webhook-secret`
 * does the same over NATS), in the key's workspace, as for prompt deployments, and of the
 * knowledge bases its `knowledge_search` tool searches (`agent knowledge-bases`).
 */
@ApiExcludeController()
@Controller('v1/private/agents')
@PrivateApiRoute()
export class PrivateAgentsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get(':id/webhook_secret')
  async webhookSecret(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ webhook_secret: AgentWebhookSecretView }> {
    const view = await send(this.rpc, AgentPatterns.getWebhookSecret, { workspace_id: request.auth.workspace_id, agent_id: id });
    return { webhook_secret: view };
  }

  /** A new secret; the old one keeps working (and signing) for `overlap_seconds` (default WEBHOOK_SECRET_OVERLAP_SECONDS). */
  @Post(':id/webhook_secret/rotate')
  @HttpCode(200)
  async rotateWebhookSecret(
    @Param('id') id: string,
    @Body() body: WebhookSecretRotation,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ webhook_secret: AgentWebhookSecretView }> {
    const rotation = { workspace_id: request.auth.workspace_id, agent_id: id, overlap_seconds: body.overlap_seconds };
    return {
      webhook_secret: await send(this.rpc, AgentPatterns.rotateWebhookSecret, rotation),
    };
  }

  @Get(':id/knowledge_bases')
  async knowledgeBases(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ knowledge_bases: AgentKnowledgeBases }> {
    const attached = await send(this.rpc, AgentPatterns.getKnowledgeBases, { workspace_id: request.auth.workspace_id, agent_id: id });
    return { knowledge_bases: attached };
  }

  /** Replaces the attached knowledge bases (at most 10, each an active one of the workspace; `[]` detaches all). */
  @Put(':id/knowledge_bases')
  async setKnowledgeBases(
    @Param('id') id: string,
    @Body() body: SetAgentKnowledgeBasesBody,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ knowledge_bases: AgentKnowledgeBases }> {
    const change = { workspace_id: request.auth.workspace_id, agent_id: id, knowledge_base_ids: body.knowledge_base_ids };
    return {
      knowledge_bases: await send(this.rpc, AgentPatterns.setKnowledgeBases, change),
    };
  }
}
