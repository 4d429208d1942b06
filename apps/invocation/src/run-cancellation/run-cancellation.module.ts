import { Module } from '@nestjs/common';
import { ExperimentsModule } from '../experiments/experiments.module';
import { LedgerModule } from '../ledger/ledger.module';
import { PromptRunsModule } from '../prompt-runs/prompt-runs.module';
import { WorkflowRunsModule } from '../workflows/workflow-runs.module';
import { RunCancellationController } from './run-cancellation.controller';
import { RunCanceller } from './run-canceller';

/** `invocation.requests.cancel`: a run of any kind stopped from the ledger this service owns, or an experiment run (RunCanceller). */
@Module({
  imports: [LedgerModule, PromptRunsModule, WorkflowRunsModule, ExperimentsModule],
  controllers: [RunCancellationController],
  providers: [RunCanceller],
})
export class RunCancellationModule {}
