import { Controller } from '@nestjs/common';
import {
  AgentPatterns,
  ApplyMcpServersRequest,
  CreateMcpServerRequest,
  McpServerIdRequest,
  UpdateMcpServerRequest,
  WorkspaceIdRequest,
  type AppliedMcpServer,
  type DeletedMcpServer,
  type McpServerTestResult,
  type McpServerView,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { McpServersService } from './mcp-servers.service';

@Controller()
export class McpServersController {
  constructor(private readonly servers: McpServersService) {}

  @RpcHandler(AgentPatterns.listMcpServers)
  list(request: WorkspaceIdRequest): Promise<McpServerView[]> {
    return this.servers.list(request.workspace_id);
  }

  @RpcHandler(AgentPatterns.getMcpServer)
  get(request: McpServerIdRequest): Promise<McpServerView> {
    return this.servers.get(request.workspace_id, request.server_id);
  }

  @RpcHandler(AgentPatterns.createMcpServer)
  create(request: CreateMcpServerRequest): Promise<McpServerView> {
    return this.servers.create(request.workspace_id, request.mcp_server);
  }

  @RpcHandler(AgentPatterns.updateMcpServer)
  update(request: UpdateMcpServerRequest): Promise<McpServerView> {
    return this.servers.update(request.workspace_id, request.server_id, request.mcp_server);
  }

  @RpcHandler(AgentPatterns.deleteMcpServer)
  delete(request: McpServerIdRequest): Promise<DeletedMcpServer> {
    return this.servers.delete(request.workspace_id, request.server_id);
  }

  @RpcHandler(AgentPatterns.testMcpServer)
  test(request: McpServerIdRequest): Promise<McpServerTestResult> {
    return this.servers.test(request.workspace_id, request.server_id);
  }

  @RpcHandler(AgentPatterns.testMcpDefinition)
  testDefinition(request: CreateMcpServerRequest): Promise<McpServerTestResult> {
    return this.servers.testDefinition(request.workspace_id, request.mcp_server);
  }

  @RpcHandler(AgentPatterns.approveMcpServer)
  approve(request: McpServerIdRequest): Promise<McpServerView> {
    return this.servers.approve(request.workspace_id, request.server_id);
  }

  @RpcHandler(AgentPatterns.applyMcpServers)
  apply(request: ApplyMcpServersRequest): Promise<AppliedMcpServer[]> {
    return this.servers.apply(request.workspace_id, request.mcp_servers);
  }
}
