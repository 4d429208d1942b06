import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  send,
  WorkflowInvokeInputs,
  InvocationPatterns,
  type WorkflowInvokeResponse,
  type WorkflowRunView,
  type WorkflowStepRecordView,
} from '@waggle/contracts';
import { APP_ENV, NatsRpcClient, requestContext } from '@waggle/platform';
import { CallbackUrlPolicy } from '@waggle/webhooks';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { MeteredApiRoute, PrivateApiRoute, RunStartingApiRoute } from '../auth/authenticated.decorator';
import type { GatewayEnv } from '../config/gateway.env';
import { checkTriggerBody } from '../webhooks/trigger-intake';
import { workflowRunLimits } from './workflow-run-limits';

/**
 * `POST /v1/workflow/invoke`: a workflow deployment variant, sync (the answer carries the
 * output) or async (accepted at once, the result sent to `async.callback_url`), admitted under
 * the workspace's concurrency cap with the plan values the key check brought.
 */
@ApiExcludeController()
@Controller()
export class WorkflowInvokeController {
  private readonly callbackUrls: CallbackUrlPolicy;
  private readonly invokeTimeoutMs: number;

  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) env: GatewayEnv,
  ) {
    this.callbackUrls = CallbackUrlPolicy.fromEnv(env);
    // Sent as the request's deadline: the invocation service answers within it (a run still going
    // answers with its request id), so the two sides never disagree on how long a sync run waits.
    this.invokeTimeoutMs = env.SYNC_INVOKE_TIMEOUT_MS;
  }

  @Post('v1/workflow/invoke')
  @HttpCode(200)
  @RunStartingApiRoute()
  invoke(@Body() body: WorkflowInvokeInputs, @Req() request: AuthenticatedRequest): Promise<WorkflowInvokeResponse> {
    const runAsync = body.async?.enabled === true;
    // `async.callback_url` is required when async is enabled, and must pass the callback policy.
    const callbackUrl = runAsync ? checkTriggerBody([], body.async?.callback_url, this.callbackUrls) : undefined;
    return send(
      this.rpc,
      InvocationPatterns.invokeWorkflow,
      {
        workspace_id: request.auth.workspace_id,
        request_id: requestContext.get()?.requestId ?? '',
        deployment: body.deployment,
        variant: body.variant,
        inputs: body.inputs,
        async: body.async && { enabled: runAsync, ...(callbackUrl !== undefined && { callback_url: callbackUrl }) },
        metadata: body.metadata,
        user: body.user,
        limits: workflowRunLimits(request.auth),
      },
      { timeoutMs: this.invokeTimeoutMs },
    );
  }

  /** decisions "workflow run lookup": `{workflow_run}`; another workspace's id is 404 "Prompt workflow run not found". */
  @Get('v1/workflow_runs/:id')
  @MeteredApiRoute()
  async run(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ workflow_run: WorkflowRunView }> {
    const run = await send(this.rpc, InvocationPatterns.getWorkflowRun, { workspace_id: request.auth.workspace_id, request_id: id });
    return { workflow_run: run };
  }
}

/** First-party view of a run's step records, in execution order (loop iterations included). */
@ApiExcludeController()
@Controller('v1/private/workflow_runs')
@PrivateApiRoute()
export class PrivateWorkflowRunsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get(':id/steps')
  async steps(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ steps: WorkflowStepRecordView[] }> {
    return {
      steps: await send(this.rpc, InvocationPatterns.listWorkflowRunSteps, { workspace_id: request.auth.workspace_id, request_id: id }),
    };
  }
}
