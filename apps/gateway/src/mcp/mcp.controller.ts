import { All, Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { WaggleException } from '@waggle/errors';
import { assertStorableInput } from '@waggle/platform';
import type { Request, Response } from 'express';
import { ApiKeyGuard } from '../auth/api-key.guard';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { McpServerHandler } from './mcp-server';

/**
 * `POST /v1/mcp` (the spec's decisions, MCP, "Waggle as a server"): the workspace of the
 * `Authorization: Bearer` key as an MCP server over Streamable HTTP. The edge (mcp-edge.ts) has
 * checked the Origin and read the body (at most 1 MiB); refusals answer as JSON-RPC errors (a
 * 401 with the Bearer challenge). Each message is served statelessly, so the other methods of
 * the transport (GET's stream, DELETE's session end) answer 405. Metered per tool call, not per
 * request. Documented in the OpenAPI document by hand (openapi/mcp-routes.ts).
 */
@ApiExcludeController()
@Controller()
export class McpController {
  constructor(private readonly server: McpServerHandler) {}

  @Post('v1/mcp')
  @UseGuards(ApiKeyGuard)
  serve(@Req() request: AuthenticatedRequest, @Res() response: Response): Promise<void> {
    // What no service could store or walk (NUL characters, nesting past 64 levels) is refused here, as on every native route.
    assertStorableInput(request.body);
    return this.server.serve(request, response);
  }

  @All('v1/mcp')
  methodNotAllowed(@Req() request: Request): never {
    throw new WaggleException('invalid_request', {
      status: 405,
      detail: 'mcp_method_not_allowed',
      params: { method: request.method.slice(0, 20) },
    });
  }
}
