import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { WorkspaceSummary } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { NatsRpcClient } from '@waggle/platform';
import { digestWebhookSecret, generateWebhookSecret, WebhookRegistry, type WebhookTarget } from '@waggle/webhooks';
import type Redis from 'ioredis';
import { Observable, of } from 'rxjs';
import type { ActiveWorkspaces } from './active-workspaces';
import { WebhookSecretGuard, WebhookTriggerRoute, type WebhookTriggerRequest } from './webhook-secret.guard';

const AGENT = '0190f5a1-b2c3-7d4e-8f90-a1b2c3d4e5f6';
const WORKSPACE = '00000000-0000-4000-8000-000000000001';

class AgentTriggers {
  @WebhookTriggerRoute('agent', 'agent_id')
  trigger(): string {
    return 'accepted';
  }
}

/**
 * The trigger guard with an agent owner (the agent webhook route plugs in with
 * `@WebhookTriggerRoute('agent', 'agent_id')`): the agent's target from the registry, the
 * agent service asked to write a lost one again, and decisions' 422 for an agent not found.
 */
describe('WebhookSecretGuard for agent triggers', () => {
  const secret = generateWebhookSecret();
  const target: WebhookTarget = {
    kind: 'agent',
    id: AGENT,
    workspace_id: WORKSPACE,
    secrets: [{ digest: digestWebhookSecret(secret), sealed: 'sealed', expires_at: null }],
  };
  let stored: Map<string, string>;
  let asked: Array<{ pattern: string; payload: unknown }>;
  let republishes: boolean;

  function guard(): WebhookSecretGuard {
    const redis = { get: async (key: string) => stored.get(key) ?? null } as unknown as Redis;
    const rpc = {
      request: (pattern: string, payload: unknown): Observable<unknown> => {
        asked.push({ pattern, payload });
        if (republishes) stored.set(WebhookRegistry.key('agent', AGENT), JSON.stringify(target));
        return of({ found: republishes });
      },
    } as unknown as NatsRpcClient;
    const workspaces = {
      get: async (id: string) => (id === WORKSPACE ? ({ id, language: 'es' } as WorkspaceSummary) : null),
    } as unknown as ActiveWorkspaces;
    return new WebhookSecretGuard(new Reflector(), workspaces, rpc, redis);
  }

  function trigger(agentId: string, presented?: string): { context: ExecutionContext; request: WebhookTriggerRequest } {
    const request = {
      params: { agent_id: agentId },
      headers: presented === undefined ? {} : { 'x-service-webhook-secret': presented },
      query: {},
    } as unknown as WebhookTriggerRequest;
    const context = {
      getHandler: () => AgentTriggers.prototype.trigger,
      getClass: () => AgentTriggers,
      switchToHttp: () => ({ getRequest: () => request }),
    } as unknown as ExecutionContext;
    return { context, request };
  }

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as WaggleException,
    );

  beforeEach(() => {
    stored = new Map();
    asked = [];
    republishes = false;
  });

  it("accepts the agent's secret from its registry entry, in its workspace's language", async () => {
    stored.set(WebhookRegistry.key('agent', AGENT), JSON.stringify(target));
    const { context, request } = trigger(AGENT, secret);
    await expect(guard().canActivate(context)).resolves.toBe(true);
    expect(request.webhookTarget).toEqual(target);
    expect(request.locale).toBe('es');
    expect(asked).toEqual([]);
  });

  it('refuses a wrong or missing secret with 401 unauthorized', async () => {
    stored.set(WebhookRegistry.key('agent', AGENT), JSON.stringify(target));
    for (const presented of [`${secret}x`, undefined]) {
      expect(await refusal(guard().canActivate(trigger(AGENT, presented).context))).toMatchObject({ code: 'unauthorized', status: 401 });
    }
  });

  it('answers an id that is not a UUID 422 "Agent not found" without asking anyone', async () => {
    expect(await refusal(guard().canActivate(trigger('not-an-agent', secret).context))).toMatchObject({
      code: 'resource_not_found',
      status: 422,
      message: 'Agent not found',
    });
    expect(asked).toEqual([]);
  });

  it('asks the agent service to write a missing entry again, and answers 422 "Agent not found" when it has no such agent', async () => {
    expect(await refusal(guard().canActivate(trigger(AGENT, secret).context))).toMatchObject({
      code: 'resource_not_found',
      status: 422,
      message: 'Agent not found',
    });
    expect(asked).toEqual([{ pattern: 'agent.agents.webhook-target.republish', payload: { id: AGENT } }]);
  });

  it('accepts the trigger once the agent service has written the lost entry again', async () => {
    republishes = true;
    const { context, request } = trigger(AGENT.toUpperCase(), secret);
    await expect(guard().canActivate(context)).resolves.toBe(true);
    expect(request.webhookTarget).toEqual(target);
    expect(asked).toEqual([{ pattern: 'agent.agents.webhook-target.republish', payload: { id: AGENT } }]);
  });
});
