import { ProviderCredentialsModule } from '../provider-credentials/provider-credentials.module';
import { Module } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { registerQueues } from '@waggle/platform';
import { RunCancellation, RunCancelMarks } from '@waggle/runs';
import { AgentsModule } from '../agents/agents.module';
import { McpToolsModule } from '../mcp-tools/mcp-tools.module';
import { ThreadsModule } from '../threads/threads.module';
import { AgentRunner } from './agent-runner.service';
import { AgentTriggerWorker } from './agent-trigger.worker';
import { BackgroundAgentRuns } from './background-agent-runs';
import { AgentKnowledgeSearch } from './knowledge-search';
import { documentReaderProvider } from './document-reader.provider';
import { McpToolCalls } from './mcp-tool-calls';
import { RunsController } from './runs.controller';
import { RunAgentTurn } from './usecases/run-agent-turn/run-agent-turn';

/**
 * Agent runs: invoked (whole or streamed, cancellable), with threads, caller history,
 * attachments and the read_file tool, knowledge_search over attached knowledge bases, the tools
 * of the workspace's MCP servers the agent names (and a workflow step's call of one); and
 * webhook-triggered or background (the agent-runs worker). Each is one agent turn
 * (RunAgentTurn, exported for any other caller that runs an agent). The provider registry and
 * model routes come from the app's global ProvidersModule.
 */
@Module({
  imports: [
    AgentsModule,
    ThreadsModule,
    McpToolsModule,
    ProviderCredentialsModule,
    registerQueues([QueueNames.agentRuns, QueueNames.callbacks]),
  ],
  controllers: [RunsController],
  providers: [
    RunAgentTurn,
    AgentRunner,
    RunCancellation,
    RunCancelMarks,
    documentReaderProvider,
    AgentTriggerWorker,
    AgentKnowledgeSearch,
    BackgroundAgentRuns,
    McpToolCalls,
  ],
  exports: [RunAgentTurn],
})
export class RunsModule {}
