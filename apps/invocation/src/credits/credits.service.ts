import { Inject, Injectable } from '@nestjs/common';
import { CatalogPatterns, CREDIT_ENTRIES_SHOWN, GovernanceKeys, send, type CreditsView, type TopUpCreditsRequest } from '@waggle/contracts';
import { NatsRpcClient, REDIS_CLIENT } from '@waggle/platform';
import type Redis from 'ioredis';
import { invalidGovernanceField } from '../governance-projection/governance-checks';
import { CreditsRepository } from './credits.repository';

/** Adds to the balance only when Redis holds it: a missing balance is computed (with this entry) when it is next loaded. */
const ADD_IF_PRESENT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end
return false`;

/**
 * A workspace's hosted credits (the spec's decisions on usage governance): an append-only ledger
 * of the operator's top-ups and adjustments, and the balance admission reads from Redis (every
 * entry less every hosted run's cost). Only the operator adds entries (the CLI, over NATS): the
 * private API reads.
 */
@Injectable()
export class CreditsService {
  constructor(
    private readonly credits: CreditsRepository,
    private readonly rpc: NatsRpcClient,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
  ) {}

  async show(workspaceId: string, entries = CREDIT_ENTRIES_SHOWN): Promise<CreditsView> {
    const [held, workspace, latest] = await Promise.all([
      this.redis.get(GovernanceKeys.credits(workspaceId)),
      send(this.rpc, CatalogPatterns.getWorkspace, { workspace_id: workspaceId }),
      this.credits.latest(workspaceId, entries),
    ]);
    return {
      balance_micros: held === null ? await this.credits.computedBalance(workspaceId) : Number(held),
      applies: workspace.hosted_credits === true,
      entries: latest.map((entry) => ({
        id: entry.id,
        amount_micros: entry.amountMicros,
        kind: entry.kind,
        note: entry.note,
        created_at: entry.createdAt.toISOString(),
      })),
    };
  }

  /** The operator's top-up (positive) or adjustment (either sign): the entry first, then the Redis balance if it is held. */
  async add(request: TopUpCreditsRequest): Promise<CreditsView> {
    const { workspace_id: workspaceId, amount_micros: amount, kind } = request;
    if (amount === 0 || (kind === 'top_up' && amount < 0))
      throw invalidGovernanceField('amount_micros', { detail: 'credit_amount_invalid' });
    // The workspace must exist (not_found otherwise) before credits are written for it.
    await send(this.rpc, CatalogPatterns.getWorkspace, { workspace_id: workspaceId });
    await this.credits.insert({ workspaceId, amountMicros: amount, kind, note: request.note || null });
    await this.redis.eval(ADD_IF_PRESENT, 1, GovernanceKeys.credits(workspaceId), amount);
    return this.show(workspaceId);
  }
}
