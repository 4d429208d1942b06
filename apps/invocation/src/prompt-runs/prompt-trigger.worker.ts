import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { QueueNames, type CallbackBody, type LedgerRecord, type PromptTriggerJob, type UsageObject } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import {
  APP_ENV,
  isTransientFailure,
  LedgerPublisher,
  QueueProducer,
  QueueWorker,
  REDIS_CLIENT,
  type RequestContextStore,
} from '@waggle/platform';
import { deliveryIdFor } from '@waggle/webhooks';
import type { Job } from 'bullmq';
import type Redis from 'ioredis';
import type { InvocationEnv } from '../config/invocation.env';
import { RequestsService } from '../ledger/requests.service';
import { PromptRunner } from './prompt-runner.service';

const LEDGER_PUBLISH_ATTEMPTS = 20;

const isFinished = (record: LedgerRecord | null | undefined): record is LedgerRecord & { status: 'completed' | 'failed' } =>
  record?.status === 'completed' || record?.status === 'failed';

/** The callback body of a finished run, from its ledger record. */
export function callbackBodyOf(record: LedgerRecord): CallbackBody {
  const data = record.data ?? {};
  if (record.status === 'completed') {
    return {
      event_type: 'prompt.completed',
      request_id: record.request_id,
      data: { response: String(data.response ?? ''), usage: record.usage as UsageObject | null, model: record.model ?? '' },
    };
  }
  return {
    event_type: 'prompt.failed',
    request_id: record.request_id,
    data: { error: String(data.error ?? 'The run failed'), error_code: String(data.error_code ?? 'internal_server_error') },
  };
}

/**
 * Runs accepted prompt webhook triggers (queue `prompt-runs`). A job is at-least-once: its
 * result is stored in the ledger stream before its callback is queued, and a job that finds
 * its result already recorded only queues the callback (by delivery id, so never twice), so
 * the model is not called again once a run has its result. A run that fails for a reason is
 * recorded failed and announced; an outage is waited out (QueueWorker); a job dead-lettered
 * anyway leaves its run failed in the ledger, and its replay announces it.
 */
@Injectable()
export class PromptTriggerWorker extends QueueWorker<'prompt-runs'> implements OnApplicationShutdown {
  private readonly callbacks: QueueProducer<'callbacks'>;

  constructor(
    private readonly runner: PromptRunner,
    private readonly ledger: LedgerPublisher,
    private readonly requests: RequestsService,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    super({
      queue: QueueNames.promptRuns,
      redisUrl: env.REDIS_URL,
      concurrency: env.PROMPT_TRIGGER_CONCURRENCY,
      lockMs: env.PROMPT_TRIGGER_LOCK_MS,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    });
    this.callbacks = new QueueProducer(QueueNames.callbacks, redis);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.callbacks.close();
  }

  protected contextOf(trigger: PromptTriggerJob): RequestContextStore {
    return { requestId: trigger.request_id, workspaceId: trigger.workspace_id };
  }

  protected async process(job: Job<PromptTriggerJob>): Promise<void> {
    const trigger = job.data;
    if (!isFinished(await this.requests.find(trigger.request_id))) await this.run(job);
    const record = await this.storedResult(trigger.request_id);
    await this.callbacks.add(deliveryIdFor(trigger.request_id), {
      delivery_id: deliveryIdFor(trigger.request_id),
      workspace_id: trigger.workspace_id,
      request_id: trigger.request_id,
      event_type: record.status === 'completed' ? 'prompt.completed' : 'prompt.failed',
      url: trigger.callback_url,
      body: callbackBodyOf(record),
      owner: { kind: 'prompt_deployment', id: trigger.prompt_endpoint_id },
      run_ended_at: record.ended_at ?? new Date().toISOString(),
    });
  }

  private async run(job: Job<PromptTriggerJob>): Promise<void> {
    const trigger = job.data;
    try {
      await this.runner.invokeTriggered(trigger, this.env.PROMPT_TRIGGER_TIMEOUT_MS);
    } catch (error) {
      // An outage (database, Redis, NATS) is waited out; a run that failed for a reason is
      // reported, and an unexpected fault too once the job has no attempt left.
      if (isTransientFailure(error)) throw error;
      if (!(error instanceof WaggleException) && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw error;
      const failure = error instanceof WaggleException ? error : new WaggleException('internal_server_error');
      this.recordFailed(trigger, failure);
      this.logger.warn({ request_id: trigger.request_id, error_code: failure.code }, 'prompt trigger run failed');
    }
  }

  /** A dead-lettered job's run is not left `running`: it is failed in the ledger (a replay then announces it). */
  protected override async onDeadLettered(job: Job<PromptTriggerJob>): Promise<void> {
    const trigger = job.data;
    if (isFinished(this.ledger.pendingRecord(trigger.request_id) ?? (await this.requests.find(trigger.request_id)))) return;
    this.recordFailed(trigger, new WaggleException('internal_server_error'));
    await this.ledger.stored(trigger.request_id, LEDGER_PUBLISH_ATTEMPTS);
  }

  /** A run refused before it started (deleted variant, deprecated model…) has no record of its run yet. */
  private recordFailed(trigger: PromptTriggerJob, failure: WaggleException): void {
    if (!isFinished(this.ledger.pendingRecord(trigger.request_id))) this.ledger.save(failedRecord(trigger, failure));
  }

  /** The run's finished record once the ledger stream holds it: a callback never announces a result that could be lost. */
  private async storedResult(requestId: string): Promise<LedgerRecord> {
    const inMemory = this.ledger.pendingRecord(requestId);
    // Waited out like any outage (the job goes back to the delayed set) rather than announcing a result the ledger does not hold.
    if (!(await this.ledger.stored(requestId, LEDGER_PUBLISH_ATTEMPTS)))
      throw new WaggleException('upstream_request_failed', {
        status: 503,
        detail: 'ledger_not_published',
        params: { request_id: requestId },
      });
    // Once no longer pending, the state held in memory is the state stored.
    const record = inMemory ?? (await this.requests.find(requestId));
    if (isFinished(record)) return record;
    throw new Error(`The ledger record of ${requestId} is ${record ? record.status : 'missing'}, not finished`);
  }
}

function failedRecord(trigger: PromptTriggerJob, failure: WaggleException): LedgerRecord {
  const now = new Date().toISOString();
  return {
    request_id: trigger.request_id,
    workspace_id: trigger.workspace_id,
    request_type: 'prompt',
    requestable_type: 'prompt_deployment',
    requestable_id: trigger.prompt_endpoint_id,
    deployment: null,
    variant: null,
    variant_id: trigger.variant_id,
    version_id: trigger.version_id,
    version: null,
    model: null,
    status: 'failed',
    message: null,
    metadata: trigger.metadata,
    user: trigger.user,
    generated_at: trigger.accepted_at,
    started_at: now,
    ended_at: now,
    duration_ms: 0,
    usage: null,
    data: { error: failure.message, error_code: failure.code },
  };
}
