import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../../../api-keys/api-keys.module';
import { PlansModule } from '../../../plans/plans.module';
import { WorkspacesModule } from '../../workspaces.module';
import { CreateWorkspaceController } from './create-workspace.controller';
import { CreateWorkspaceService } from './create-workspace.service';

/** Onboarding: a workspace on its plan with its first API key, as one step. */
@Module({
  imports: [PlansModule, WorkspacesModule, ApiKeysModule],
  controllers: [CreateWorkspaceController],
  providers: [CreateWorkspaceService],
})
export class CreateWorkspaceModule {}
