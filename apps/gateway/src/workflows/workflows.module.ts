import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { PrivateWorkflowsController } from './private-workflows.controller';

/** The private management of workflow deployments (invoke and run lookup come with the engine). */
@Module({ imports: [AuthModule], controllers: [PrivateWorkflowsController] })
export class WorkflowsModule {}
