import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { AccountLanguage } from '@waggle/contracts';
import { IsNull, type EntityManager, type Repository } from 'typeorm';
import type { PlanEntity } from '../plans/plan.entity';
import { WorkspaceEntity } from './workspace.entity';

/** Every query of workspaces. Only workspaces that are not deleted are ever found. */
@Injectable()
export class WorkspacesRepository {
  constructor(@InjectRepository(WorkspaceEntity) private readonly workspaces: Repository<WorkspaceEntity>) {}

  /** One transaction for writes that must land together (a workspace and its first key). */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.workspaces.manager.transaction(work);
  }

  /** A new workspace on a plan (inside the caller's transaction when given), its plan loaded. */
  async insert(
    values: { name: string; plan: PlanEntity; language: AccountLanguage },
    manager: EntityManager = this.workspaces.manager,
  ): Promise<WorkspaceEntity> {
    const workspace = await manager.save(
      manager.create(WorkspaceEntity, { name: values.name, planKey: values.plan.key, language: values.language, limitOverrides: {} }),
    );
    workspace.plan = values.plan;
    return workspace;
  }

  /** Every workspace that is not deleted, with its plan, oldest first. */
  listActive(): Promise<WorkspaceEntity[]> {
    return this.workspaces.find({ where: { deletedAt: IsNull() }, relations: { plan: true }, order: { createdAt: 'ASC' } });
  }

  /** The workspace with its plan unless it is deleted (inside the caller's transaction when given), or null. */
  findActive(id: string, manager: EntityManager = this.workspaces.manager): Promise<WorkspaceEntity | null> {
    return manager.findOne(WorkspaceEntity, { where: { id, deletedAt: IsNull() }, relations: { plan: true } });
  }

  save(workspace: WorkspaceEntity): Promise<WorkspaceEntity> {
    return this.workspaces.save(workspace);
  }
}
