import {
  Inject,
  Injectable,
  Logger,
  SetMetadata,
  applyDecorators,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AgentPatterns, InvocationPatterns, send, type RpcPattern, type WebhookOwnerKind } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient, REDIS_CLIENT, requestContext } from '@waggle/platform';
import { acceptsSecret, WebhookRegistry, type WebhookTarget } from '@waggle/webhooks';
import type { LocalizedRequest } from '../errors/http-exception.filter';
import { IdempotencyGuard } from '../idempotency/idempotency.guard';
import { TriggerAdmissionGuard } from '../meter/trigger-admission.guard';
import { ActiveWorkspaces } from './active-workspaces';
import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';

/** The header a trigger carries its secret in; `?secret=` is the fallback for callers that cannot set headers. */
export const WEBHOOK_SECRET_HEADER = 'x-service-webhook-secret';

const TRIGGER_OWNER = Symbol('waggle:webhook-trigger-owner');

/** Who can write a lost registry entry again, per owner kind (workflows add theirs). */
const REPUBLISHERS: Partial<
  Record<WebhookOwnerKind, Extract<RpcPattern, 'invocation.prompts.webhook-target.republish' | 'agent.agents.webhook-target.republish'>>
> = {
  prompt_deployment: InvocationPatterns.republishWebhookTarget,
  agent: AgentPatterns.republishWebhookTarget,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface TriggerOwner {
  kind: WebhookOwnerKind;
  /** The route parameter holding the owner's id. */
  param: string;
}

/** A request that passed the webhook secret guard. */
export type WebhookTriggerRequest = LocalizedRequest & { webhookTarget: WebhookTarget };

/**
 * A webhook trigger route: no API key and not on the daily meter; the secret of the owner named
 * by `param` authenticates it (WebhookSecretGuard), an `Idempotency-Key` is honoured in the
 * owner's workspace, and the run is admitted against the workspace's and the end user's budgets
 * and limits (TriggerAdmissionGuard). Agent triggers use the same decorator.
 */
export const WebhookTriggerRoute = (kind: WebhookOwnerKind, param: string) =>
  applyDecorators(
    SetMetadata(TRIGGER_OWNER, { kind, param } satisfies TriggerOwner),
    UseGuards(WebhookSecretGuard, IdempotencyGuard, TriggerAdmissionGuard),
  );

function presentedSecret(request: LocalizedRequest): string | undefined {
  const header = request.headers[WEBHOOK_SECRET_HEADER];
  if (typeof header === 'string' && header !== '') return header;
  const query = request.query.secret;
  return typeof query === 'string' && query !== '' ? query : undefined;
}

/**
 * Authenticates a trigger from the webhook registry in Redis, without asking the owning
 * service, so triggers are accepted while it restarts. An unknown owner answers 404; a
 * missing or wrong secret 401 `unauthorized`, compared in constant time against every
 * secret in force (two during a rotation's overlap). The workspace must still exist
 * (ActiveWorkspaces); its language localizes the answers.
 */
@Injectable()
export class WebhookSecretGuard implements CanActivate {
  private readonly logger = new Logger(WebhookSecretGuard.name);
  private readonly registry: WebhookRegistry;
  /** Ids their owner said do not exist, not asked about again for 30 s. */
  private readonly knownMissing = new LRUCache<string, true>({ max: 10_000, ttl: 30_000 });

  constructor(
    private readonly reflector: Reflector,
    private readonly workspaces: ActiveWorkspaces,
    private readonly rpc: NatsRpcClient,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.registry = new WebhookRegistry(redis);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const owner =
      this.reflector.get<TriggerOwner | undefined>(TRIGGER_OWNER, context.getHandler()) ??
      this.reflector.get<TriggerOwner>(TRIGGER_OWNER, context.getClass());
    const request = context.switchToHttp().getRequest<WebhookTriggerRequest>();
    const param = request.params[owner.param];
    const id = typeof param === 'string' ? param : '';
    const target = UUID.test(id) ? await this.lookup(owner.kind, id.toLowerCase()) : null;
    // decisions: an agent not found answers 422 (the spec's status for that lookup), a deployment 404.
    const notFound =
      owner.kind === 'agent' ? ({ status: 422, detail: 'agent_not_found' } as const) : ({ detail: 'prompt_deployment_not_found' } as const);
    if (!target) throw new WaggleException('resource_not_found', notFound);
    const secret = presentedSecret(request);
    if (secret === undefined || !acceptsSecret(target, secret)) {
      throw new WaggleException('unauthorized', {
        detail: 'webhook_secret_required',
      });
    }
    // A deleted workspace's deployments answer as if they never existed.
    const workspace = await this.workspaces.get(target.workspace_id);
    if (!workspace) throw new WaggleException('resource_not_found', notFound);
    request.locale = workspace.language;
    request.webhookTarget = target;
    const store = requestContext.get();
    if (store) store.workspaceId = target.workspace_id;
    return true;
  }

  private async lookup(kind: WebhookOwnerKind, id: string): Promise<WebhookTarget | null> {
    const found = await this.read(kind, id);
    if (found) return found;
    // Not in the registry: Redis may have lost it (a restart without persistence). Its
    // owner writes it again, so the trigger works now rather than at the next resync.
    const republish = REPUBLISHERS[kind];
    if (!republish || this.knownMissing.has(id)) return null;
    let exists: boolean;
    try {
      exists = (await send(this.rpc, republish, { id })).found;
    } catch (error) {
      this.logger.warn({ err: error, owner_id: id }, 'a webhook target is missing and its owner could not be asked');
      throw new WaggleException('upstream_request_failed', {
        status: 503,
        detail: 'webhooks_unavailable',
      });
    }
    if (!exists) {
      this.knownMissing.set(id, true);
      return null;
    }
    return this.read(kind, id);
  }

  private async read(kind: WebhookOwnerKind, id: string): Promise<WebhookTarget | null> {
    try {
      return await this.registry.get(kind, id);
    } catch (error) {
      this.logger.error({ err: error }, 'the webhook registry is unavailable');
      throw new WaggleException('upstream_request_failed', {
        status: 503,
        detail: 'webhooks_unavailable',
      });
    }
  }
}
