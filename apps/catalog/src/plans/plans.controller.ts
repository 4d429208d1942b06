import { Controller } from '@nestjs/common';
import { CatalogPatterns, SetPlanLimitsRequest, type PlanSummary } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { PlansService } from './plans.service';

@Controller()
export class PlansController {
  constructor(private readonly plans: PlansService) {}

  @RpcHandler(CatalogPatterns.listPlans)
  list(): Promise<PlanSummary[]> {
    return this.plans.list();
  }

  @RpcHandler(CatalogPatterns.setPlanLimits)
  setLimits(request: SetPlanLimitsRequest): Promise<PlanSummary> {
    const { plan, hosted_credits, ...patch } = request;
    return this.plans.setLimits(plan, patch, hosted_credits);
  }
}
