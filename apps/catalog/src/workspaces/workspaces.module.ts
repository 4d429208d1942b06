import { Module } from '@nestjs/common';
import { PlansModule } from '../plans/plans.module';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

/** Workspaces: their plan, per-workspace limit overrides, language and soft deletion. */
@Module({
  imports: [PlansModule],
  controllers: [WorkspacesController],
  providers: [WorkspacesRepository, WorkspacesService],
  exports: [WorkspacesRepository, WorkspacesService],
})
export class WorkspacesModule {}
