import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import { AgentPatterns, send, type AgentRunRequest } from '@waggle/contracts';
import { APP_ENV, NatsRpcClient, requestContext } from '@waggle/platform';
import { errorMessage, WaggleException } from '@waggle/errors';
import { CallbackUrlPolicy } from '@waggle/webhooks';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { RunStartingApiRoute } from '../auth/authenticated.decorator';
import type { GatewayEnv } from '../config/gateway.env';
import { relayRunStream } from '../streaming/sse-relay';
import { checkCallbackUrl } from '../webhooks/trigger-intake';
import { AgentInvokeBody } from './agent-invoke.dto';

/** `async.callback_url` is where a background run's result goes: anywhere else nothing would ever call it. */
function callbackNeedsBackground(): WaggleException {
  const problem = { detail: 'callback_needs_background' } as const;
  return new WaggleException('validation_error', {
    ...problem,
    details: [{ field: 'async.callback_url', messages: [errorMessage(problem, 'en')] }],
  });
}

/**
 * Send a message to an agent: one JSON answer, or a stream of events. Everything the agent
 * service refuses (agent not found, attachments, vision) is refused before any event, so it
 * answers as a JSON error; a client that leaves mid-stream cancels the run silently, unless it
 * runs in the background (decisions D40): then its stream can be resumed, or (not streaming) it
 * answers 202 at once and its result is read from the ledger or delivered to `async.callback_url`.
 */
@ApiExcludeController()
@ApiBearerAuth()
@Controller()
@RunStartingApiRoute()
export class AgentInvokeController {
  private readonly callbackUrls: CallbackUrlPolicy;

  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: GatewayEnv,
  ) {
    this.callbackUrls = CallbackUrlPolicy.fromEnv(env);
  }

  @Post('v1/agent/invoke')
  @HttpCode(200)
  async invoke(@Body() body: AgentInvokeBody, @Req() request: AuthenticatedRequest, @Res() response: Response): Promise<void> {
    const requestId = requestContext.get()?.requestId ?? '';
    const { streaming, background, async: callback, ...inputs } = body;
    const run: AgentRunRequest = { ...inputs, workspace_id: request.auth.workspace_id, request_id: requestId };
    if (callback && (!background || streaming)) throw callbackNeedsBackground();
    if (background && !streaming) {
      const callbackUrl = callback && checkCallbackUrl(callback.callback_url, this.callbackUrls);
      response
        .status(202)
        .json(await send(this.rpc, AgentPatterns.acceptAgent, { ...run, ...(callbackUrl && { callback_url: callbackUrl }) }));
      return;
    }
    if (!streaming) {
      response.status(200).json(await send(this.rpc, AgentPatterns.invokeAgent, run, { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS }));
      return;
    }
    await relayRunStream(this.rpc, request, response, requestId, background === true, (keepEventsMs) =>
      send(this.rpc, AgentPatterns.streamAgent, { ...run, keep_events_ms: keepEventsMs }, { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS }),
    );
  }
}
