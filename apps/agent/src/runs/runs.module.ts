import { Module } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { registerQueues } from '@waggle/platform';
import { RunCancellation, RunCancelMarks } from '@waggle/runs';
import { AgentRunner } from './agent-runner.service';
import { AgentTriggerWorker } from './agent-trigger.worker';
import { BackgroundAgentRuns } from './background-agent-runs';
import { AgentKnowledgeSearch } from './knowledge-search';
import { documentReaderProvider } from './document-reader.provider';
import { RunnableAgents } from './runnable-agents';
import { RunsController } from './runs.controller';
import { RunsRepository } from './runs.repository';

/**
 * Agent runs: invoked (whole or streamed, cancellable), with threads, caller history,
 * attachments and the read_file tool, knowledge_search over attached knowledge bases; and webhook-triggered or background (the agent-runs worker). The
 * provider registry and model routes come from the app's global ProvidersModule.
 */
@Module({
  imports: [registerQueues([QueueNames.agentRuns, QueueNames.callbacks])],
  controllers: [RunsController],
  providers: [
    AgentRunner,
    RunsRepository,
    RunnableAgents,
    RunCancellation,
    RunCancelMarks,
    documentReaderProvider,
    AgentTriggerWorker,
    AgentKnowledgeSearch,
    BackgroundAgentRuns,
  ],
})
export class RunsModule {}
