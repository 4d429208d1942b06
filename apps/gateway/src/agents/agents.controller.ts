import { Body, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiParam, ApiResponse } from '@nestjs/swagger';
import { AgentPatterns, send, type AgentRecord } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { WORKSPACE_NOT_FOUND, WorkspaceResourceController } from '../openapi/workspace-resource.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import {
  AgentDeletedDto,
  AgentItemDto,
  AgentListDto,
  AgentWrittenDto,
  CreateAgentBody,
  CreateAgentBodyDoc,
  UpdateAgentBody,
  UpdateAgentBodyDoc,
} from './agent.dto';

const AGENT_PARAM = { name: 'id', type: String, format: 'uuid', description: 'The agent id' } as const;
const NOT_FOUND = {
  status: 422,
  description: "Agent not found: unknown, deleted, or another workspace's (error_code resource_not_found)",
  type: ErrorBodyDto,
} as const;
const INVALID = {
  status: 422,
  description:
    'Invalid body (validation_error, missing_required_field) or invalid LLM model, `error` naming the model (validation_error, model_deprecated)',
  type: ErrorBodyDto,
} as const;

/**
 * A workspace's agents (the spec's "Agents collection and item"), owned by the agent
 * service. The workspace is the API key's; the path's must be the same.
 */
@WorkspaceResourceController('agents', 'agents')
export class AgentsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The workspace's active agents, oldest first. */
  @Get()
  @ApiOkResponse({ type: AgentListDto })
  @ApiResponse(WORKSPACE_NOT_FOUND)
  async list(@Req() request: AuthenticatedRequest): Promise<{ agents: AgentRecord[] }> {
    return { agents: await send(this.rpc, AgentPatterns.listAgents, { workspace_id: request.auth.workspace_id }) };
  }

  /** A new agent, with its own webhook secret (shown by the private webhook_secret route). */
  @Post()
  @HttpCode(200)
  @ApiBody({ type: CreateAgentBodyDoc })
  @ApiOkResponse({ type: AgentWrittenDto })
  @ApiResponse(WORKSPACE_NOT_FOUND)
  @ApiResponse(INVALID)
  async create(@Body() body: CreateAgentBody, @Req() request: AuthenticatedRequest): Promise<{ message: string; agent: AgentRecord }> {
    const agent = await send(this.rpc, AgentPatterns.createAgent, { workspace_id: request.auth.workspace_id, agent: body.agent });
    return { message: 'Agent created successfully', agent };
  }

  @Get(':id')
  @ApiParam(AGENT_PARAM)
  @ApiOkResponse({ type: AgentItemDto })
  @ApiResponse(WORKSPACE_NOT_FOUND)
  @ApiResponse(NOT_FOUND)
  async get(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ agent: AgentRecord }> {
    return {
      agent: await send(this.rpc, AgentPatterns.getAgent, { workspace_id: request.auth.workspace_id, agent_id: id }),
    };
  }

  /** Changes the fields the body names; null unsets an optional field. */
  @Patch(':id')
  @ApiParam(AGENT_PARAM)
  @ApiBody({ type: UpdateAgentBodyDoc })
  @ApiOkResponse({ type: AgentWrittenDto })
  @ApiResponse(WORKSPACE_NOT_FOUND)
  @ApiResponse({ ...INVALID, description: `${INVALID.description}; or Agent not found (resource_not_found)` })
  async update(
    @Param('id') id: string,
    @Body() body: UpdateAgentBody,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ message: string; agent: AgentRecord }> {
    const agent = await send(this.rpc, AgentPatterns.updateAgent, {
      workspace_id: request.auth.workspace_id,
      agent_id: id,
      agent: body.agent,
    });
    return { message: 'Agent updated successfully', agent };
  }

  /** A soft delete: the agent is never read, listed, updated, invoked or triggered again. */
  @Delete(':id')
  @ApiParam(AGENT_PARAM)
  @ApiOkResponse({ type: AgentDeletedDto })
  @ApiResponse(WORKSPACE_NOT_FOUND)
  @ApiResponse(NOT_FOUND)
  async remove(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ message: string }> {
    await send(this.rpc, AgentPatterns.deleteAgent, { workspace_id: request.auth.workspace_id, agent_id: id });
    return { message: 'Agent deleted successfully' };
  }
}
