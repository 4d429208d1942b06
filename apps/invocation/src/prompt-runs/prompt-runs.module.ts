import { Module } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { registerQueues } from '@waggle/platform';
import { RunCancellation, RunCancelMarks } from '@waggle/runs';
import { LedgerModule } from '../ledger/ledger.module';
import { PromptsModule } from '../prompts/prompts.module';
import { ProviderCredentialsModule } from '../provider-credentials/provider-credentials.module';
import { BackgroundPromptRuns } from './background-prompt-runs';
import { PromptExecution } from './prompt-execution';
import { PromptRunner } from './prompt-runner.service';
import { PromptTriggerWorker } from './prompt-trigger.worker';
import { PromptRunsController } from './prompt-runs.controller';

/**
 * Prompt runs: invoked (whole or streamed, cancellable), and webhook-triggered or background
 * (the prompt-runs worker). PromptExecution is how anything else (the workflow `prompt` step) runs a deployed
 * prompt. The provider registry and model routes come from the app's global ProvidersModule.
 */
@Module({
  imports: [PromptsModule, LedgerModule, ProviderCredentialsModule, registerQueues([QueueNames.promptRuns, QueueNames.callbacks])],
  controllers: [PromptRunsController],
  providers: [RunCancellation, RunCancelMarks, PromptExecution, PromptRunner, PromptTriggerWorker, BackgroundPromptRuns],
  // The app's one RunCancellation (workflow runs are tracked by it too), the trigger worker a cancel finishes waiting jobs with,
  // and the runner experiment cells run through.
  exports: [PromptExecution, PromptRunner, RunCancellation, RunCancelMarks, PromptTriggerWorker],
})
export class PromptRunsModule {}
