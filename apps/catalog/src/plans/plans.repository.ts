import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { PlanEntity } from './plan.entity';

/** Every query of plans. */
@Injectable()
export class PlansRepository {
  constructor(@InjectRepository(PlanEntity) private readonly plans: Repository<PlanEntity>) {}

  /** Every plan, oldest first. */
  list(): Promise<PlanEntity[]> {
    return this.plans.find({ order: { createdAt: 'ASC', key: 'ASC' } });
  }

  /** The plan with this key (keys are lower case), or null. */
  findByKey(key: string): Promise<PlanEntity | null> {
    return this.plans.findOneBy({ key: key.toLowerCase() });
  }

  save(plan: PlanEntity): Promise<PlanEntity> {
    return this.plans.save(plan);
  }
}
