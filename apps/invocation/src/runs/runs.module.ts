import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { PromptsModule } from '../prompts/prompts.module';
import { ModelRoutes } from './model-routes';
import { PromptRunner } from './prompt-runner.service';
import { PromptTriggerWorker } from './prompt-trigger.worker';
import { RunCancellation } from './run-cancellation';
import { RunsController } from './runs.controller';

/** Prompt runs: invoked (whole or streamed, cancellable) and webhook-triggered (the prompt-runs worker). */
@Module({
  imports: [PromptsModule, LedgerModule],
  controllers: [RunsController],
  providers: [ModelRoutes, RunCancellation, PromptRunner, PromptTriggerWorker],
})
export class RunsModule {}
