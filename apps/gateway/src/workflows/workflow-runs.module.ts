import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { PrivateWorkflowRunsController, WorkflowInvokeController } from './workflow-invoke.controller';

/** Workflow invoke, run lookup and the private step records. */
@Module({ imports: [AuthModule], controllers: [WorkflowInvokeController, PrivateWorkflowRunsController] })
export class WorkflowRunsModule {}
