import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PLAN_LIMIT_NAMES } from '@waggle/contracts';
import { DataRepository } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { PlanEntity } from './entities/plan.entity';

/**
 * A plan's values as one JSON object (a PlanLimits, in PLAN_LIMIT_NAMES order), for the
 * statements that read a workspace with its plan joined as `p`: each limit is the plan column
 * of the same name.
 */
export const PLAN_LIMITS_JSON = `json_build_object(${PLAN_LIMIT_NAMES.map((name) => `'${name}', p."${name}"`).join(', ')})`;

/** Every query of plans. */
@Injectable()
export class PlansRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** Every plan, oldest first. */
  list(): Promise<PlanEntity[]> {
    return this.table(PlanEntity).find({ order: { createdAt: 'ASC', key: 'ASC' } });
  }

  /** The plan with this key (keys are lower case), or null. */
  findByKey(key: string): Promise<PlanEntity | null> {
    return this.table(PlanEntity).findOneBy({ key: key.toLowerCase() });
  }

  save(plan: PlanEntity): Promise<PlanEntity> {
    return this.table(PlanEntity).save(plan);
  }
}
