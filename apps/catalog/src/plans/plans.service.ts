import { Injectable } from '@nestjs/common';
import { PLAN_LIMIT_NAMES, type LimitsPatch, type PlanLimits, type PlanSummary } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { PlanEntity } from './entities/plan.entity';
import { PlansRepository } from './plans.repository';

const COLUMN_OF_LIMIT = {
  rate_limit_per_day: 'rateLimitPerDay',
  provider_tool_calls_per_day: 'providerToolCallsPerDay',
  workflow_concurrency: 'workflowConcurrency',
  workflow_step_limit: 'workflowStepLimit',
  asset_storage_bytes: 'assetStorageBytes',
} as const satisfies Record<keyof PlanLimits, keyof PlanEntity>;

function planLimits(plan: PlanEntity): PlanLimits {
  return Object.fromEntries(PLAN_LIMIT_NAMES.map((name) => [name, plan[COLUMN_OF_LIMIT[name]]])) as PlanLimits;
}

/** The fields of a patch that were given (null included: it means unlimited). */
export function presentLimits(patch: LimitsPatch): Partial<PlanLimits> {
  return Object.fromEntries(PLAN_LIMIT_NAMES.filter((name) => patch[name] !== undefined).map((name) => [name, patch[name]]));
}

export function toPlanSummary(plan: PlanEntity): PlanSummary {
  return { key: plan.key, name: plan.name, limits: planLimits(plan), hosted_credits: plan.hostedCredits };
}

@Injectable()
export class PlansService {
  constructor(private readonly plans: PlansRepository) {}

  async list(): Promise<PlanSummary[]> {
    const plans = await this.plans.list();
    return plans.map(toPlanSummary);
  }

  /** The plan with its values; an unknown key is `resource_not_found`. */
  async get(key: string): Promise<PlanSummary> {
    return toPlanSummary(await this.find(key));
  }

  /** Changes the limits given, and `hosted_credits` when given. */
  async setLimits(key: string, patch: LimitsPatch, hostedCredits?: boolean): Promise<PlanSummary> {
    const plan = await this.find(key);
    if (hostedCredits !== undefined) plan.hostedCredits = hostedCredits;
    for (const [name, value] of Object.entries(presentLimits(patch)) as Array<[keyof PlanLimits, number | null]>) {
      (plan as unknown as Record<string, number | null>)[COLUMN_OF_LIMIT[name]] = value;
    }
    return toPlanSummary(await this.plans.save(plan));
  }

  private async find(key: string): Promise<PlanEntity> {
    const plan = await this.plans.findByKey(key);
    if (!plan) throw new WaggleException('resource_not_found', { detail: 'plan_not_found', params: { key } });
    return plan;
  }
}
