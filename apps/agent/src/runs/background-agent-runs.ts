import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { QueueNames, type AcceptAgentRunRequest, type AcceptedRun, type AgentTriggerJob } from '@waggle/contracts';
import { type JobQueue } from '@waggle/platform';
import { acceptQueuedRun, LedgerPublisher, runCredentials } from '@waggle/runs';
import { WorkspaceCredentials } from '../provider-credentials/workspace-credentials';
import { ModelRoutes, ProviderRegistry, resolveChatRoute } from '@waggle/providers';
import { RunnableAgents } from '../agents/runnable-agents';
import { checkRunAttachments, hasImages } from './conversation';

/**
 * Background agent invokes without streaming (decisions D40): refused as an invoke is before
 * anything runs (agent not found, attachments, vision), then queued on `agent-runs`, where the
 * agent trigger worker runs it as it runs a webhook trigger (and it survives the loss of this
 * replica); recorded `queued` until a worker takes it; announced by callback only when the
 * caller gave `async.callback_url`.
 */
@Injectable()
export class BackgroundAgentRuns {
  constructor(
    private readonly agents: RunnableAgents,
    private readonly routes: ModelRoutes,
    private readonly registry: ProviderRegistry,
    private readonly ledger: LedgerPublisher,
    private readonly credentials: WorkspaceCredentials,
    @InjectQueue(QueueNames.agentRuns) private readonly runs: JobQueue<'agent-runs'>,
  ) {}

  async accept(request: AcceptAgentRunRequest): Promise<AcceptedRun> {
    const agent = await this.agents.getActive(request.workspace_id, request.agent);
    // Refused here as a run is (missing workspace credentials, used-up hosted credits): a queued run is a started one.
    await resolveChatRoute(
      this.routes,
      this.registry,
      agent.llmModel,
      { images: hasImages(checkRunAttachments(request)) },
      runCredentials(agent.credentials, request.workspace_id, this.credentials.lookup),
    );
    const job: AgentTriggerJob = {
      request_id: request.request_id,
      workspace_id: request.workspace_id,
      agent_id: agent.id,
      message: request.message,
      thread_id: request.thread_id ?? null,
      metadata: request.metadata ?? {},
      user: request.user ?? null,
      callback_url: request.callback_url ?? null,
      accepted_at: new Date().toISOString(),
      ...(request.messages !== undefined && { messages: request.messages }),
      ...(request.attachments !== undefined && { attachments: request.attachments }),
      ...(request.image_urls !== undefined && { image_urls: request.image_urls }),
    };
    return acceptQueuedRun(
      this.runs,
      this.ledger,
      job,
      { request_type: 'agent', requestable_type: 'agent', requestable_id: agent.id, message: job.message },
      'queued',
    );
  }
}
