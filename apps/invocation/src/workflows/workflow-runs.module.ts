import { Module } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { registerQueues } from '@waggle/platform';
import { PromptRunsModule } from '../prompt-runs/prompt-runs.module';
import { ProviderCredentialsModule } from '../provider-credentials/provider-credentials.module';
import { WorkflowDeploymentsModule } from './deployments/workflow-deployments.module';
import { ProviderToolMeter } from './engine/provider-tool-meter';
import { StepExecutors } from './engine/step-executors';
import { WorkflowEngine } from './engine/workflow-engine';
import { LocalRunSlots } from './runs/local-run-slots';
import { LocalWorkflowRuns } from './runs/local-workflow-runs';
import { SyncRunWaiters } from './runs/sync-run-waiters';
import { StartWorkflowRun } from './runs/usecases/start-workflow-run/start-workflow-run';
import { WorkflowReaper } from './runs/workflow-reaper';
import { WorkflowRunAdmission } from './runs/workflow-run-admission';
import { WorkflowRunSettlement } from './runs/workflow-run-settlement';
import { WorkflowRunExecutor } from './runs/workflow-run.executor';
import { WorkflowRunWorker } from './runs/workflow-run.worker';
import { WorkflowRunsController } from './runs/workflow-runs.controller';
import { WorkflowRunsRepository } from './runs/workflow-runs.repository';
import { WorkflowRunsService } from './runs/workflow-runs.service';

/**
 * Workflow runs: invoke (sync and async under the concurrency cap), the durable engine and its
 * BullMQ workers, the reaper, the provider tool meter, and run lookup. Deployments (apply,
 * versions, webhook secrets) are WorkflowDeploymentsModule's.
 */
@Module({
  imports: [
    WorkflowDeploymentsModule,
    PromptRunsModule,
    ProviderCredentialsModule,
    registerQueues([QueueNames.workflowRuns, QueueNames.callbacks]),
  ],
  controllers: [WorkflowRunsController],
  providers: [
    WorkflowRunsRepository,
    WorkflowRunsService,
    StartWorkflowRun,
    WorkflowRunAdmission,
    LocalRunSlots,
    LocalWorkflowRuns,
    SyncRunWaiters,
    WorkflowRunSettlement,
    WorkflowEngine,
    StepExecutors,
    ProviderToolMeter,
    WorkflowRunExecutor,
    WorkflowRunWorker,
    WorkflowReaper,
  ],
  exports: [WorkflowRunsService],
})
export class WorkflowRunsModule {}
