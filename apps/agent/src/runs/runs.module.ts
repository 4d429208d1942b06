import { Module } from '@nestjs/common';
import { RunCancellation } from '@waggle/platform';
import { AgentRunner } from './agent-runner.service';
import { AgentTriggerWorker } from './agent-trigger.worker';
import { documentReaderProvider } from './document-reader.provider';
import { RunnableAgents } from './runnable-agents';
import { RunsController } from './runs.controller';
import { RunsRepository } from './runs.repository';

/**
 * Agent runs: invoked (whole or streamed, cancellable), with threads, caller history,
 * attachments and the read_file tool; and webhook-triggered (the agent-runs worker). The
 * provider registry and model routes come from the app's global ProvidersModule.
 */
@Module({
  controllers: [RunsController],
  providers: [AgentRunner, RunsRepository, RunnableAgents, RunCancellation, documentReaderProvider, AgentTriggerWorker],
})
export class RunsModule {}
