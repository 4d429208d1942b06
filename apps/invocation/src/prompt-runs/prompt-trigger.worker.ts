import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { QueueNames, type LedgerRecord, type PromptTriggerJob } from '@waggle/contracts';
import { APP_ENV, QueueProcessor, type JobQueue } from '@waggle/platform';
import { LedgerPublisher, RunCancelMarks, TriggerWorker, type TriggeredRun } from '@waggle/runs';
import { deliveryIdFor } from '@waggle/webhooks';
import type { InvocationEnv } from '../config/invocation.env';
import { RequestsService } from '../ledger/requests.service';
import { PromptRunner } from './prompt-runner.service';

/** Runs accepted prompt webhook triggers (queue `prompt-runs`), as TriggerWorker runs every trigger. */
@Injectable()
@QueueProcessor(QueueNames.promptRuns)
export class PromptTriggerWorker extends TriggerWorker<'prompt-runs'> {
  constructor(
    private readonly runner: PromptRunner,
    private readonly requests: RequestsService,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
    ledger: LedgerPublisher,
    @InjectQueue(QueueNames.callbacks) callbacks: JobQueue<'callbacks'>,
    @InjectQueue(QueueNames.promptRuns) runs: JobQueue<'prompt-runs'>,
    marks: RunCancelMarks,
  ) {
    super(
      {
        queue: QueueNames.promptRuns,
        redisUrl: env.REDIS_URL,
        concurrency: env.PROMPT_TRIGGER_CONCURRENCY,
        lockMs: env.PROMPT_TRIGGER_LOCK_MS,
        shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      },
      ledger,
      callbacks,
      runs,
      marks,
    );
  }

  protected execute(trigger: PromptTriggerJob): Promise<unknown> {
    return this.runner.invokeTriggered(trigger, this.env.PROMPT_TRIGGER_TIMEOUT_MS);
  }

  /** Invocation owns the ledger: its own table answers. */
  protected storedRecord(trigger: PromptTriggerJob): Promise<LedgerRecord | null> {
    return this.requests.find(trigger.request_id);
  }

  protected describe(trigger: PromptTriggerJob): TriggeredRun {
    return {
      kind: 'prompt',
      deliveryId: deliveryIdFor(trigger.request_id),
      owner: { kind: 'prompt_deployment', id: trigger.prompt_endpoint_id },
      record: {
        requestable_type: 'prompt_deployment',
        requestable_id: trigger.prompt_endpoint_id,
        variant_id: trigger.variant_id,
        version_id: trigger.version_id,
        message: null,
      },
    };
  }
}
