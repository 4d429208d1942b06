import { Body, Controller, Get, HttpCode, Param, Post, Req, type Type } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { send, WebhookSecretRotation, type ReplyPattern, type RpcRequest } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';

/** The reply patterns whose request accepts `Payload` (so a factory call with a wrong pattern does not compile). */
type PatternAccepting<Payload> = { [P in ReplyPattern]: Payload extends RpcRequest<P> ? P : never }[ReplyPattern];

interface WorkspaceScoped {
  workspace_id: string;
}
interface DeploymentScoped extends WorkspaceScoped {
  deployment: string;
}

export interface PrivateDeploymentsRoutes<Key extends string, ApplyBody extends Record<Key, unknown[]>> {
  /** `v1/private/<kind>`. */
  path: string;
  /** The list's and the apply's key, in the request body and in the answer (`prompts`, `workflows`). */
  key: Key;
  /** The definition file's shape, as JSON: the contract's apply request without `workspace_id` (the key's workspace). */
  applyBody: Type<ApplyBody>;
  patterns: {
    list: PatternAccepting<WorkspaceScoped>;
    apply: PatternAccepting<WorkspaceScoped & ApplyBody>;
    versions: PatternAccepting<DeploymentScoped & { variant: string }>;
    webhookSecret: PatternAccepting<DeploymentScoped>;
    rotateWebhookSecret: PatternAccepting<DeploymentScoped & { overlap_seconds?: number }>;
  };
}

/** One reply call; the pattern's request type was checked against the payload where the factory was called. */
function call(rpc: NatsRpcClient, pattern: ReplyPattern, payload: object): Promise<unknown> {
  return send(rpc, pattern, payload as RpcRequest<ReplyPattern>);
}

/**
 * First-party management of one kind of deployment (the CLI's `apply` does the same over
 * NATS): apply definitions, list deployments, read every version of a variant, show and
 * rotate a deployment's webhook secret. Prompts and workflows are the same routes over
 * their own patterns, so one class built per kind serves both.
 */
export function privateDeploymentsController<Key extends string, ApplyBody extends Record<Key, unknown[]>>(
  routes: PrivateDeploymentsRoutes<Key, ApplyBody>,
): Type<unknown> {
  const { key, patterns } = routes;

  @ApiExcludeController()
  @Controller(routes.path)
  @PrivateApiRoute()
  class PrivateDeploymentsController {
    constructor(private readonly rpc: NatsRpcClient) {}

    @Get()
    async list(@Req() request: AuthenticatedRequest): Promise<Record<Key, unknown>> {
      const deployments = await call(this.rpc, patterns.list, { workspace_id: request.auth.workspace_id });
      return { [key]: deployments } as Record<Key, unknown>;
    }

    @Post('apply')
    @HttpCode(200)
    async apply(@Body() body: ApplyBody, @Req() request: AuthenticatedRequest): Promise<Record<Key, unknown>> {
      const applied = await call(this.rpc, patterns.apply, { workspace_id: request.auth.workspace_id, [key]: body[key] });
      return { [key]: applied } as Record<Key, unknown>;
    }

    @Get(':deployment/variants/:variant/versions')
    async versions(
      @Param('deployment') deployment: string,
      @Param('variant') variant: string,
      @Req() request: AuthenticatedRequest,
    ): Promise<{ versions: unknown }> {
      const versions = await call(this.rpc, patterns.versions, { workspace_id: request.auth.workspace_id, deployment, variant });
      return { versions };
    }

    @Get(':deployment/webhook_secret')
    async webhookSecret(
      @Param('deployment') deployment: string,
      @Req() request: AuthenticatedRequest,
    ): Promise<{ webhook_secret: unknown }> {
      return { webhook_secret: await call(this.rpc, patterns.webhookSecret, { workspace_id: request.auth.workspace_id, deployment }) };
    }

    @Post(':deployment/webhook_secret/rotate')
    @HttpCode(200)
    async rotateWebhookSecret(
      @Param('deployment') deployment: string,
      @Body() body: WebhookSecretRotation,
      @Req() request: AuthenticatedRequest,
    ): Promise<{ webhook_secret: unknown }> {
      const rotation = { workspace_id: request.auth.workspace_id, deployment, overlap_seconds: body.overlap_seconds };
      return { webhook_secret: await call(this.rpc, patterns.rotateWebhookSecret, rotation) };
    }
  }

  // The apply body's class is the factory's argument, so its parameter type (what the global
  // ValidationPipe validates against) is recorded here rather than by the compiler.
  Reflect.defineMetadata('design:paramtypes', [routes.applyBody, Object], PrivateDeploymentsController.prototype, 'apply');
  return PrivateDeploymentsController;
}
