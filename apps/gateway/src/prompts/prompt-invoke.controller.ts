import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import { InvocationPatterns, send, type PromptRunRequest } from '@waggle/contracts';
import { APP_ENV, NatsRpcClient, requestContext } from '@waggle/platform';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { RunStartingApiRoute } from '../auth/authenticated.decorator';
import type { GatewayEnv } from '../config/gateway.env';
import { PromptInvokeBody } from './prompt-invoke.dto';
import { relayRunStream } from '../streaming/sse-relay';

/** Run a prompt deployment variant: one JSON answer, or a stream of events; in the background, either outlives its client. */
@ApiExcludeController()
@ApiBearerAuth()
@Controller()
@RunStartingApiRoute()
export class PromptInvokeController {
  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post(['v1/prompt/invoke', 'v1/invoke'])
  @HttpCode(200)
  async invoke(@Body() body: PromptInvokeBody, @Req() request: AuthenticatedRequest, @Res() response: Response): Promise<void> {
    const requestId = requestContext.get()?.requestId ?? '';
    const run: PromptRunRequest = {
      workspace_id: request.auth.workspace_id,
      request_id: requestId,
      deployment: body.deployment,
      variant: body.variant,
      inputs: body.inputs,
      metadata: body.metadata,
      user: body.user,
      label: body.label,
      version: body.version,
    };
    const background = body.background === true;
    if (!body.streaming) {
      response
        .status(background ? 202 : 200)
        .json(
          background
            ? await send(this.rpc, InvocationPatterns.acceptPrompt, run)
            : await send(this.rpc, InvocationPatterns.invokePrompt, run, { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS }),
        );
      return;
    }
    await relayRunStream(this.rpc, request, response, requestId, background, (keepEventsMs) =>
      send(
        this.rpc,
        InvocationPatterns.streamPrompt,
        { ...run, keep_events_ms: keepEventsMs },
        { timeoutMs: this.env.SYNC_INVOKE_TIMEOUT_MS },
      ),
    );
  }
}
