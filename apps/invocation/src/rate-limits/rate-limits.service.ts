import { Injectable } from '@nestjs/common';
import { MAX_RATE_LIMITS_PER_WORKSPACE, type RateLimitChanges, type RateLimitDefinition, type RateLimitView } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import { checkApiKeyScope, invalidGovernanceField } from '../governance-projection/governance-checks';
import { GovernanceProjection } from '../governance-projection/governance-projection';
import type { RateLimitEntity } from './entities/rate-limit.entity';
import { RateLimitsRepository } from './rate-limits.repository';

function rateLimitNotFound(): WaggleException {
  return new WaggleException('resource_not_found', { detail: 'rate_limit_not_found' });
}

function toRateLimitView(limit: RateLimitEntity): RateLimitView {
  return {
    id: limit.id,
    scope: limit.scope,
    scope_id: limit.scopeId,
    requests_per_minute: limit.requestsPerMinute,
    tokens_per_minute: limit.tokensPerMinute,
    created_at: limit.createdAt.toISOString(),
    updated_at: limit.updatedAt.toISOString(),
  };
}

function checkSomeRate(limit: Pick<RateLimitEntity, 'requestsPerMinute' | 'tokensPerMinute'>): void {
  if (limit.requestsPerMinute === null && limit.tokensPerMinute === null)
    throw invalidGovernanceField('requests_per_minute', { detail: 'rate_limit_needs_a_rate' });
}

/** Requests and tokens per minute of API keys and end users (the spec's decisions on usage governance), projected into Redis after every change. */
@Injectable()
export class RateLimitsService {
  constructor(
    private readonly limits: RateLimitsRepository,
    private readonly projection: GovernanceProjection,
    private readonly rpc: NatsRpcClient,
  ) {}

  async list(workspaceId: string): Promise<RateLimitView[]> {
    return (await this.limits.list(workspaceId)).map(toRateLimitView);
  }

  async get(workspaceId: string, id: string): Promise<RateLimitView> {
    const limit = await this.limits.find(workspaceId, id);
    if (!limit) throw rateLimitNotFound();
    return toRateLimitView(limit);
  }

  async create(workspaceId: string, definition: RateLimitDefinition): Promise<RateLimitView> {
    const rates = { requestsPerMinute: definition.requests_per_minute ?? null, tokensPerMinute: definition.tokens_per_minute ?? null };
    checkSomeRate(rates);
    await checkApiKeyScope(this.rpc, workspaceId, definition.scope, definition.scope_id);
    const created = await this.projection.change(workspaceId, async () => {
      if ((await this.limits.count(workspaceId)) >= MAX_RATE_LIMITS_PER_WORKSPACE)
        throw invalidGovernanceField('scope', { detail: 'rate_limit_limit', params: { max: MAX_RATE_LIMITS_PER_WORKSPACE } });
      const existing = await this.limits.findByScope(workspaceId, definition.scope, definition.scope_id);
      if (existing) throw invalidGovernanceField('scope_id', { detail: 'rate_limit_exists', params: { id: existing.id } });
      return this.limits.save({ workspaceId, scope: definition.scope, scopeId: definition.scope_id, ...rates });
    });
    return toRateLimitView(created);
  }

  /** Changes the rates given (null unsets one); one must stay set. */
  async update(workspaceId: string, id: string, changes: RateLimitChanges): Promise<RateLimitView> {
    const updated = await this.projection.change(workspaceId, async () => {
      const limit = await this.limits.find(workspaceId, id);
      if (!limit) throw rateLimitNotFound();
      if (changes.requests_per_minute !== undefined) limit.requestsPerMinute = changes.requests_per_minute;
      if (changes.tokens_per_minute !== undefined) limit.tokensPerMinute = changes.tokens_per_minute;
      checkSomeRate(limit);
      return this.limits.save(limit);
    });
    return toRateLimitView(updated);
  }

  async delete(workspaceId: string, id: string): Promise<{ id: string }> {
    await this.projection.change(workspaceId, async () => {
      if (!(await this.limits.delete(workspaceId, id))) throw rateLimitNotFound();
    });
    return { id };
  }
}
