import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { QueueNames, type AcceptAgentRunRequest, type AcceptedRun, type AgentTriggerJob } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { type JobQueue } from '@waggle/platform';
import { acceptQueuedRun, LedgerPublisher } from '@waggle/runs';
import { ModelRoutes, ProviderRegistry, resolveChatRoute } from '@waggle/providers';
import { checkRunAttachments } from './conversation';
import { RunnableAgents } from './runnable-agents';

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
    @InjectQueue(QueueNames.agentRuns) private readonly runs: JobQueue<'agent-runs'>,
  ) {}

  async accept(request: AcceptAgentRunRequest): Promise<AcceptedRun> {
    const agent = await this.agents.get(request.workspace_id, request.agent);
    if (!agent) throw new WaggleException('resource_not_found', { status: 422, detail: 'agent_not_found' });
    const checked = checkRunAttachments(request);
    const images = checked.current.images.length + checked.history.reduce((sum, message) => sum + message.images.length, 0);
    await resolveChatRoute(this.routes, this.registry, agent.llmModel, { images: images > 0 });
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
