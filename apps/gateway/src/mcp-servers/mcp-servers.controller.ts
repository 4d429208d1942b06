import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  AgentPatterns,
  MCP_SERVER_ID_FORMAT,
  McpServerChanges,
  McpServerDefinition,
  send,
  type McpServerTestResult,
  type McpServerView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import {
  McpConnectionFailedBodyDto,
  McpServerChangesDoc,
  McpServerDefinitionDoc,
  McpServerDeletedDto,
  McpServerDto,
  McpServerListDto,
  McpServerTestResultDto,
} from './mcp-server.dto';

const SERVER_PARAM = { name: 'id', type: String, description: "The server's id", example: 'github' } as const;
const NOT_FOUND = {
  status: 404,
  description: "MCP server not found: unknown, or another workspace's (resource_not_found)",
  type: ErrorBodyDto,
} as const;
const INVALID = {
  status: 422,
  description: 'Invalid body (validation_error), the workspace already has 20 servers (validation_error), or the id is taken',
  type: ErrorBodyDto,
} as const;
const BAD_REQUEST = { status: 400, description: 'A body that is not JSON (validation_error)', type: ErrorBodyDto } as const;
const CONNECTION_FAILED = {
  status: 422,
  description:
    'The connection test failed (mcp_connection_failed): `details.stage` says where, with the HTTP status or protocol error where known',
  type: McpConnectionFailedBodyDto,
} as const;

/** Any id that cannot name a server answers 404 without asking the agent service. */
function checkedId(id: string): string {
  if (!MCP_SERVER_ID_FORMAT.test(id)) throw new WaggleException('resource_not_found', { detail: 'mcp_server_not_found' });
  return id;
}

/**
 * A workspace's MCP servers (the spec's decisions, MCP: "workspace MCP servers", "connection
 * test"), owned by the agent service; the workspace is the API key's. Documented in the OpenAPI
 * document although private.
 */
@ApiTags('mcp_servers')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/mcp_servers')
@PrivateApiRoute()
export class McpServersController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The workspace's servers, by id. */
  @Get()
  @ApiOkResponse({ type: McpServerListDto })
  async list(@Req() request: AuthenticatedRequest): Promise<{ mcp_servers: McpServerView[] }> {
    return { mcp_servers: await send(this.rpc, AgentPatterns.listMcpServers, { workspace_id: request.auth.workspace_id }) };
  }

  /** A new server; an enabled one is tested first and the tools it lists become its approved snapshot. A failed test saves nothing. */
  @Post()
  @HttpCode(200)
  @ApiBody({ type: McpServerDefinitionDoc })
  @ApiOkResponse({ type: McpServerDto })
  @ApiResponse(BAD_REQUEST)
  @ApiResponse({ ...INVALID, description: `${INVALID.description}; or ${CONNECTION_FAILED.description}` })
  create(@Body() body: McpServerDefinition, @Req() request: AuthenticatedRequest): Promise<McpServerView> {
    return send(this.rpc, AgentPatterns.createMcpServer, { workspace_id: request.auth.workspace_id, mcp_server: body });
  }

  /** The connection test of a definition not saved (a create's body): nothing is stored. */
  @Post('test')
  @HttpCode(200)
  @ApiBody({ type: McpServerDefinitionDoc })
  @ApiOkResponse({ type: McpServerTestResultDto })
  @ApiResponse(BAD_REQUEST)
  @ApiResponse(CONNECTION_FAILED)
  testDefinition(@Body() body: McpServerDefinition, @Req() request: AuthenticatedRequest): Promise<McpServerTestResult> {
    return send(this.rpc, AgentPatterns.testMcpDefinition, { workspace_id: request.auth.workspace_id, mcp_server: body });
  }

  @Get(':id')
  @ApiParam(SERVER_PARAM)
  @ApiOkResponse({ type: McpServerDto })
  @ApiResponse(NOT_FOUND)
  get(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<McpServerView> {
    return send(this.rpc, AgentPatterns.getMcpServer, { workspace_id: request.auth.workspace_id, server_id: checkedId(id) });
  }

  /** Changes the fields sent (headers left out are kept); an enabled server is tested and its tools approved again. */
  @Patch(':id')
  @ApiParam(SERVER_PARAM)
  @ApiBody({ type: McpServerChangesDoc })
  @ApiOkResponse({ type: McpServerDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(BAD_REQUEST)
  @ApiResponse({ ...INVALID, description: `Invalid body (validation_error); or ${CONNECTION_FAILED.description}` })
  update(@Param('id') id: string, @Body() body: McpServerChanges, @Req() request: AuthenticatedRequest): Promise<McpServerView> {
    return send(this.rpc, AgentPatterns.updateMcpServer, {
      workspace_id: request.auth.workspace_id,
      server_id: checkedId(id),
      mcp_server: body,
    });
  }

  @Delete(':id')
  @ApiParam(SERVER_PARAM)
  @ApiOkResponse({ type: McpServerDeletedDto })
  @ApiResponse(NOT_FOUND)
  async remove(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ message: string }> {
    await send(this.rpc, AgentPatterns.deleteMcpServer, { workspace_id: request.auth.workspace_id, server_id: checkedId(id) });
    return { message: 'MCP server deleted successfully' };
  }

  /** The connection test of a saved server: the tools it lists now, and which differ from the approved snapshot. */
  @Post(':id/test')
  @HttpCode(200)
  @ApiParam(SERVER_PARAM)
  @ApiOkResponse({ type: McpServerTestResultDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(CONNECTION_FAILED)
  test(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<McpServerTestResult> {
    return send(this.rpc, AgentPatterns.testMcpServer, { workspace_id: request.auth.workspace_id, server_id: checkedId(id) });
  }

  /** Lists the server's tools now and stores them as the approved snapshot (what a changed tool needs before it is offered again). */
  @Post(':id/approve')
  @HttpCode(200)
  @ApiParam(SERVER_PARAM)
  @ApiOkResponse({ type: McpServerDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(CONNECTION_FAILED)
  approve(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<McpServerView> {
    return send(this.rpc, AgentPatterns.approveMcpServer, { workspace_id: request.auth.workspace_id, server_id: checkedId(id) });
  }
}
