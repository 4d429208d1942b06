import { Controller } from '@nestjs/common';
import {
  AgentIdRequest,
  AgentPatterns,
  CreateAgentRequest,
  RotateAgentWebhookSecretRequest,
  SetAgentKnowledgeBasesRequest,
  UpdateAgentRequest,
  VerifyAgentWebhookSecretRequest,
  WorkspaceIdRequest,
  type AgentKnowledgeBases,
  type AgentRecord,
  type AgentWebhookSecretCheck,
  type AgentWebhookSecretView,
  type DeletedAgent,
  type McpToolDescriptor,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { AgentKnowledgeBaseLinks } from './agent-knowledge-bases.service';
import { AgentWebhookSecrets } from './agent-webhook-secrets.service';
import { AgentsService } from './agents.service';

@Controller()
export class AgentsController {
  constructor(
    private readonly agents: AgentsService,
    private readonly secrets: AgentWebhookSecrets,
    private readonly knowledgeBases: AgentKnowledgeBaseLinks,
  ) {}

  @RpcHandler(AgentPatterns.listAgents)
  list(request: WorkspaceIdRequest): Promise<AgentRecord[]> {
    return this.agents.list(request.workspace_id);
  }

  @RpcHandler(AgentPatterns.createAgent)
  create(request: CreateAgentRequest): Promise<AgentRecord> {
    return this.agents.create(request.workspace_id, request.agent);
  }

  @RpcHandler(AgentPatterns.getAgent)
  get(request: AgentIdRequest): Promise<AgentRecord> {
    return this.agents.get(request.workspace_id, request.agent_id);
  }

  @RpcHandler(AgentPatterns.updateAgent)
  update(request: UpdateAgentRequest): Promise<AgentRecord> {
    return this.agents.update(request.workspace_id, request.agent_id, request.agent);
  }

  @RpcHandler(AgentPatterns.deleteAgent)
  delete(request: AgentIdRequest): Promise<DeletedAgent> {
    return this.agents.delete(request.workspace_id, request.agent_id);
  }

  @RpcHandler(AgentPatterns.getWebhookSecret)
  webhookSecret(request: AgentIdRequest): Promise<AgentWebhookSecretView> {
    return this.secrets.view(request.workspace_id, request.agent_id);
  }

  @RpcHandler(AgentPatterns.rotateWebhookSecret)
  rotateWebhookSecret(request: RotateAgentWebhookSecretRequest): Promise<AgentWebhookSecretView> {
    return this.secrets.rotate(request.workspace_id, request.agent_id, request.overlap_seconds);
  }

  @RpcHandler(AgentPatterns.verifyWebhookSecret)
  verifyWebhookSecret(request: VerifyAgentWebhookSecretRequest): Promise<AgentWebhookSecretCheck> {
    return this.secrets.verify(request.agent_id, request.secret);
  }

  @RpcHandler(AgentPatterns.listMcpTools)
  mcpTools(request: WorkspaceIdRequest): Promise<McpToolDescriptor[]> {
    return this.agents.mcpTools(request.workspace_id);
  }

  @RpcHandler(AgentPatterns.getKnowledgeBases)
  getKnowledgeBases(request: AgentIdRequest): Promise<AgentKnowledgeBases> {
    return this.knowledgeBases.get(request.workspace_id, request.agent_id);
  }

  @RpcHandler(AgentPatterns.setKnowledgeBases)
  setKnowledgeBases(request: SetAgentKnowledgeBasesRequest): Promise<AgentKnowledgeBases> {
    return this.knowledgeBases.set(request.workspace_id, request.agent_id, request.knowledge_base_ids);
  }
}
