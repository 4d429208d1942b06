import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CatalogPatterns, SetPlanLimitsRequest, type PlanSummary } from '@waggle/contracts';
import { PlansService } from './plans.service';

@Controller()
export class PlansController {
  constructor(private readonly plans: PlansService) {}

  @MessagePattern(CatalogPatterns.listPlans)
  list(): Promise<PlanSummary[]> {
    return this.plans.list();
  }

  @MessagePattern(CatalogPatterns.setPlanLimits)
  setLimits(@Payload() request: SetPlanLimitsRequest): Promise<PlanSummary> {
    const { plan, ...patch } = request;
    return this.plans.setLimits(plan, patch);
  }
}
