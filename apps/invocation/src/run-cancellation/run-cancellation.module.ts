import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { PromptRunsModule } from '../prompt-runs/prompt-runs.module';
import { WorkflowRunsModule } from '../workflows/workflow-runs.module';
import { RunCancellationController } from './run-cancellation.controller';
import { RunCanceller } from './run-canceller';

/** `invocation.requests.cancel`: a run of any kind stopped from the ledger this service owns (RunCanceller). */
@Module({
  imports: [LedgerModule, PromptRunsModule, WorkflowRunsModule],
  controllers: [RunCancellationController],
  providers: [RunCanceller],
})
export class RunCancellationModule {}
