import { Inject, Injectable, Logger } from '@nestjs/common';
import { GovernanceKeys } from '@waggle/contracts';
import { REDIS_CLIENT } from '@waggle/platform';
import type Redis from 'ioredis';
import { CreditsRepository } from '../credits/credits.repository';
import { SpendRepository } from '../spend/spend.repository';
import { GovernanceProjectionRepository } from './governance-projection.repository';
import { budgetSpendKey, periodStart, projectionFields, SPEND_KEY_TTL_SECONDS } from './projection-fields';

/**
 * Replaces the projection hash whole, unless it already holds this version or a newer one
 * (KEYS[1] the hash; ARGV[1] the version, then its field/value pairs): writers that race (two
 * replicas after two changes, a load beside a change) leave the newest projection, never an older one.
 */
const WRITE_PROJECTION = `
local current = redis.call('HGET', KEYS[1], 'version')
if current and tonumber(current) >= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1`;

interface ProjectionCommand<R> {
  writeGovernanceProjection(key: string, version: number, ...fields: string[]): R;
}
type RedisWithProjection = Redis & ProjectionCommand<Promise<number>>;

/**
 * The owner's side of the gateway's admission (the spec's decisions on usage governance): every
 * budget or rate-limit change commits with a new workspace version, then the workspace's Redis
 * projection is rewritten from PostgreSQL; the gateway asks for a load when the projection is
 * missing, which also seeds the credit balance and the budgets' period spend when Redis lost them.
 */
@Injectable()
export class GovernanceProjection {
  private readonly logger = new Logger(GovernanceProjection.name);
  private readonly redis: RedisWithProjection;

  constructor(
    private readonly projections: GovernanceProjectionRepository,
    private readonly spend: SpendRepository,
    private readonly credits: CreditsRepository,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    if (!('writeGovernanceProjection' in redis))
      redis.defineCommand('writeGovernanceProjection', { numberOfKeys: 1, lua: WRITE_PROJECTION });
    this.redis = redis as RedisWithProjection;
  }

  /**
   * Runs a change of the workspace's budgets or rate limits in one transaction with a new version
   * (changes of one workspace take turns on its version row), then writes the projection. A write
   * that fails is logged, not thrown: the change is committed, and the next change or load writes it.
   */
  async change<T>(workspaceId: string, work: () => Promise<T>): Promise<T> {
    const result = await this.projections.transaction(async () => {
      await this.projections.bumpVersion(workspaceId);
      return work();
    });
    await this.write(workspaceId).catch((error: unknown) =>
      this.logger.error({ err: error, workspace_id: workspaceId }, 'governance projection not written after a change'),
    );
    return result;
  }

  /** Writes the workspace's projection from PostgreSQL (kept if Redis holds a newer one); answers its version. */
  async write(workspaceId: string): Promise<number> {
    const snapshot = await this.projections.snapshot(workspaceId);
    await this.redis.writeGovernanceProjection(GovernanceKeys.projection(workspaceId), snapshot.version, ...projectionFields(snapshot));
    return snapshot.version;
  }

  /**
   * `invocation.governance.load`: the projection, then, only where missing (SET NX), the credit
   * balance (every entry less every hosted run's cost) and the current day's and month's spend of
   * each budgeted scope, from the request ledger.
   */
  async load(workspaceId: string, now: Date = new Date()): Promise<{ version: number }> {
    const snapshot = await this.projections.snapshot(workspaceId);
    const [balance, spent] = await Promise.all([
      this.credits.computedBalance(workspaceId),
      this.spend.scopeSpend(
        workspaceId,
        snapshot.budgets.map((budget) => ({ scope: budget.scope, scope_id: budget.scope_id, since: periodStart(budget.period, now) })),
      ),
    ]);
    const pipeline = this.redis.pipeline();
    (pipeline as unknown as ProjectionCommand<unknown>).writeGovernanceProjection(
      GovernanceKeys.projection(workspaceId),
      snapshot.version,
      ...projectionFields(snapshot),
    );
    pipeline.set(GovernanceKeys.credits(workspaceId), String(balance), 'NX');
    snapshot.budgets.forEach((budget, index) =>
      pipeline.set(budgetSpendKey(workspaceId, budget, now), String(spent[index]), 'EX', SPEND_KEY_TTL_SECONDS[budget.period], 'NX'),
    );
    const results = (await pipeline.exec()) ?? [];
    const failure = results.find(([error]) => error);
    if (failure?.[0]) throw failure[0];
    return { version: snapshot.version };
  }
}
