import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import { AgentPatterns, RUN_CANCEL_SUBJECT, send, type AgentRunRequest } from '@waggle/contracts';
import { APP_ENV, NatsRpcClient, requestContext } from '@waggle/platform';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { RunStartingApiRoute } from '../auth/authenticated.decorator';
import type { GatewayEnv } from '../config/gateway.env';
import { relayAsSse } from '../streaming/sse-relay';
import { AgentInvokeBody } from './agent-invoke.dto';

/**
 * Send a message to an agent: one JSON answer, or a stream of events. Everything the agent
 * service refuses (agent not found, attachments, vision) is refused before any event, so it
 * answers as a JSON error; a client that leaves mid-stream cancels the run silently.
 */
@ApiExcludeController()
@ApiBearerAuth()
@Controller()
@RunStartingApiRoute()
export class AgentInvokeController {
  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post('v1/agent/invoke')
  @HttpCode(200)
  async invoke(@Body() body: AgentInvokeBody, @Req() request: AuthenticatedRequest, @Res() response: Response): Promise<void> {
    const requestId = requestContext.get()?.requestId ?? '';
    const { streaming, ...inputs } = body;
    const run: AgentRunRequest = { ...inputs, workspace_id: request.auth.workspace_id, request_id: requestId };
    if (!streaming) {
      response.status(200).json(await send(this.rpc, AgentPatterns.invokeAgent, run, { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS }));
      return;
    }
    const events = send(this.rpc, AgentPatterns.streamAgent, run, { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS });
    await relayAsSse(request, response, requestId, events, () => this.rpc.publish(RUN_CANCEL_SUBJECT, { request_id: requestId }));
  }
}
