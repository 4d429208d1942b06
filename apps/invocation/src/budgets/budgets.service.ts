import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_BUDGET_THRESHOLDS,
  MAX_BUDGETS_PER_WORKSPACE,
  periodEnd,
  type BudgetChanges,
  type BudgetDefinition,
  type BudgetView,
  type BudgetWritten,
} from '@waggle/contracts';
import { errorMessage, WaggleException } from '@waggle/errors';
import { APP_ENV, NatsRpcClient, REDIS_CLIENT } from '@waggle/platform';
import { CallbackUrlPolicy, generateWebhookSecret, SecretSealer } from '@waggle/webhooks';
import type Redis from 'ioredis';
import type { InvocationEnv } from '../config/invocation.env';
import { checkApiKeyScope, invalidGovernanceField } from '../governance-projection/governance-checks';
import { GovernanceProjection } from '../governance-projection/governance-projection';
import { budgetSpendKey } from '../governance-projection/projection-fields';
import { BudgetWebhookTargets } from './budget-webhook-targets';
import { BudgetsRepository } from './budgets.repository';
import type { BudgetEntity } from './entities/budget.entity';

function budgetNotFound(): WaggleException {
  return new WaggleException('resource_not_found', { detail: 'budget_not_found' });
}

/** Thresholds as stored: ascending, the default when none are given. */
function storedThresholds(thresholds: number[] | undefined): number[] {
  return [...(thresholds ?? DEFAULT_BUDGET_THRESHOLDS)].sort((a, b) => a - b);
}

export function toBudgetView(budget: BudgetEntity, spentMicros: number, now: Date): BudgetView {
  return {
    id: budget.id,
    scope: budget.scope,
    scope_id: budget.scopeId,
    period: budget.period,
    limit_micros: budget.limitMicros,
    thresholds: budget.thresholds,
    alert_url: budget.alertUrl,
    spent_micros: spentMicros,
    period_resets_at: periodEnd(budget.period, now).toISOString(),
    created_at: budget.createdAt.toISOString(),
    updated_at: budget.updatedAt.toISOString(),
  };
}

/**
 * A workspace's budgets (the spec's decisions on usage governance): stored here, projected into
 * Redis for the gateway's admission after every change, read back with the current period's
 * spend from Redis (the counter reconciliation adds to).
 */
@Injectable()
export class BudgetsService {
  private readonly alertUrls: CallbackUrlPolicy;

  constructor(
    private readonly budgets: BudgetsRepository,
    private readonly projection: GovernanceProjection,
    private readonly targets: BudgetWebhookTargets,
    private readonly sealer: SecretSealer,
    private readonly rpc: NatsRpcClient,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    @Inject(APP_ENV) env: InvocationEnv,
  ) {
    this.alertUrls = CallbackUrlPolicy.fromEnv(env);
  }

  async list(workspaceId: string): Promise<BudgetView[]> {
    return this.views(await this.budgets.list(workspaceId));
  }

  async get(workspaceId: string, id: string): Promise<BudgetView> {
    const budget = await this.budgets.find(workspaceId, id);
    if (!budget) throw budgetNotFound();
    return (await this.views([budget]))[0];
  }

  async create(workspaceId: string, definition: BudgetDefinition): Promise<BudgetWritten> {
    if (definition.alert_url) this.checkAlertUrl(definition.alert_url);
    const scopeId = definition.scope === 'workspace' ? null : (definition.scope_id ?? null);
    await checkApiKeyScope(this.rpc, workspaceId, definition.scope, scopeId);
    const secret = definition.alert_url ? generateWebhookSecret() : null;
    const created = await this.projection.change(workspaceId, async () => {
      if ((await this.budgets.count(workspaceId)) >= MAX_BUDGETS_PER_WORKSPACE)
        throw invalidGovernanceField('scope', { detail: 'budget_limit', params: { max: MAX_BUDGETS_PER_WORKSPACE } });
      const existing = await this.budgets.findByScope(workspaceId, { scope: definition.scope, scopeId, period: definition.period });
      if (existing) throw invalidGovernanceField('scope', { detail: 'budget_exists', params: { id: existing.id } });
      return this.budgets.save({
        workspaceId,
        scope: definition.scope,
        scopeId,
        period: definition.period,
        limitMicros: definition.limit_micros,
        thresholds: storedThresholds(definition.thresholds),
        alertUrl: definition.alert_url ?? null,
        webhookSecretSealed: secret === null ? null : this.sealer.seal(secret),
      });
    });
    if (secret !== null) await this.targets.publish(created.id);
    return { ...(await this.views([created]))[0], ...(secret === null ? {} : { webhook_secret: secret }) };
  }

  /** Changes what is given; the first alert URL a budget gets makes its webhook secret, answered this once. */
  async update(workspaceId: string, id: string, changes: BudgetChanges): Promise<BudgetWritten> {
    if (changes.alert_url) this.checkAlertUrl(changes.alert_url);
    let secret: string | null = null;
    const updated = await this.projection.change(workspaceId, async () => {
      const budget = await this.budgets.find(workspaceId, id);
      if (!budget) throw budgetNotFound();
      if (changes.limit_micros !== undefined) budget.limitMicros = changes.limit_micros;
      if (changes.thresholds !== undefined) budget.thresholds = storedThresholds(changes.thresholds);
      if (changes.alert_url !== undefined) budget.alertUrl = changes.alert_url;
      if (budget.alertUrl !== null && budget.webhookSecretSealed === null) {
        secret = generateWebhookSecret();
        budget.webhookSecretSealed = this.sealer.seal(secret);
      }
      return this.budgets.save(budget);
    });
    if (secret !== null) await this.targets.publish(updated.id);
    return { ...(await this.views([updated]))[0], ...(secret === null ? {} : { webhook_secret: secret }) };
  }

  async delete(workspaceId: string, id: string): Promise<{ id: string }> {
    await this.projection.change(workspaceId, async () => {
      if (!(await this.budgets.delete(workspaceId, id))) throw budgetNotFound();
    });
    await this.targets.unpublish(id);
    return { id };
  }

  /** The views with each budget's current period spend: one MGET (a workspace's keys share a hash slot). */
  private async views(budgets: BudgetEntity[], now: Date = new Date()): Promise<BudgetView[]> {
    if (budgets.length === 0) return [];
    const spent = await this.redis.mget(
      budgets.map((budget) =>
        budgetSpendKey(budget.workspaceId, { scope: budget.scope, scope_id: budget.scopeId, period: budget.period }, now),
      ),
    );
    return budgets.map((budget, index) => toBudgetView(budget, Number(spent[index] ?? 0), now));
  }

  private checkAlertUrl(url: string): void {
    const refusal = this.alertUrls.refusal(url);
    if (refusal)
      throw new WaggleException('validation_error', {
        detail: 'url_refused',
        params: { reason: refusal },
        details: [{ field: 'alert_url', messages: [errorMessage(refusal, 'en')] }],
      });
  }
}
