import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { QueueNames, type AcceptedRun, type PromptRunRequest, type PromptTriggerJob } from '@waggle/contracts';
import { type JobQueue } from '@waggle/platform';
import { acceptQueuedRun, LedgerPublisher } from '@waggle/runs';
import { PromptExecution } from './prompt-execution';
import { promptTargetOf } from './prompt-runner.service';

/**
 * Background prompt invokes without streaming (decisions D40): refused exactly as an invoke is
 * (everything is checked before the run is accepted), then queued on `prompt-runs` with the
 * version pinned, where the prompt trigger worker runs it as it runs a webhook trigger (and it
 * survives the loss of this replica); recorded `queued` until a worker takes it.
 */
@Injectable()
export class BackgroundPromptRuns {
  constructor(
    private readonly execution: PromptExecution,
    private readonly ledger: LedgerPublisher,
    @InjectQueue(QueueNames.promptRuns) private readonly runs: JobQueue<'prompt-runs'>,
  ) {}

  async accept(request: PromptRunRequest): Promise<AcceptedRun> {
    const target = promptTargetOf(request);
    const { inputs } = target;
    const prompt = await this.execution.prepare({ ...target, conversation: undefined });
    const job: PromptTriggerJob = {
      request_id: request.request_id,
      workspace_id: request.workspace_id,
      prompt_endpoint_id: prompt.deployment.id,
      variant_id: prompt.variant.id,
      version_id: prompt.version.id,
      inputs,
      metadata: request.metadata ?? {},
      user: request.user ?? null,
      label: prompt.label,
      split: prompt.split,
      callback_url: null,
      accepted_at: new Date().toISOString(),
    };
    return acceptQueuedRun(
      this.runs,
      this.ledger,
      job,
      {
        request_type: 'prompt',
        requestable_type: 'prompt_deployment',
        requestable_id: job.prompt_endpoint_id,
        variant: prompt.variant.name,
        variant_id: job.variant_id,
        version_id: job.version_id,
      },
      'queued',
    );
  }
}
