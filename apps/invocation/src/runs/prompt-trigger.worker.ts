import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueueNames, type CallbackBody, type PromptTriggerJob, type UsageObject } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, REDIS_CLIENT, requestContext } from '@waggle/platform';
import { CallbackQueue, deliveryIdFor } from '@waggle/webhooks';
import { Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import type { Repository } from 'typeorm';
import type { InvocationEnv } from '../config/invocation.env';
import { LedgerWriter } from '../ledger/ledger-writer';
import { RequestRecordEntity } from '../ledger/request-record.entity';
import { PromptRunner } from './prompt-runner.service';

const LEDGER_WRITE_ATTEMPTS = 20;

/** The callback body of a finished run, from its ledger record. */
export function callbackBodyOf(record: RequestRecordEntity): CallbackBody {
  const data = record.data ?? {};
  if (record.status === 'completed') {
    return { event_type: 'prompt.completed', request_id: record.id, data: { response: String(data.response ?? ''), usage: record.usage as UsageObject | null, model: record.model ?? '' } };
  }
  return { event_type: 'prompt.failed', request_id: record.id, data: { error: String(data.error ?? 'The run failed'), error_code: String(data.error_code ?? 'internal_server_error') } };
}

/**
 * Runs accepted prompt webhook triggers (queue `prompt-runs`). A job is at-least-once:
 * its result is written to the ledger before its callback is queued, and a job that
 * finds its result already written only queues the callback (by delivery id, so never
 * twice), so the model is not called again once a run has its result.
 */
@Injectable()
export class PromptTriggerWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PromptTriggerWorker.name);
  private readonly callbacks: CallbackQueue;
  private worker?: Worker<PromptTriggerJob>;
  private connection?: Redis;

  constructor(
    private readonly runner: PromptRunner,
    private readonly ledger: LedgerWriter,
    @InjectRepository(RequestRecordEntity) private readonly records: Repository<RequestRecordEntity>,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.callbacks = new CallbackQueue(redis);
  }

  onApplicationBootstrap(): void {
    // A worker blocks on its connection, which BullMQ requires to retry forever.
    this.connection = new Redis(this.env.REDIS_URL, { maxRetriesPerRequest: null, connectionName: 'waggle-invocation-prompt-runs' });
    this.worker = new Worker<PromptTriggerJob>(QueueNames.promptRuns, (job) => requestContext.run({ requestId: job.data.request_id, workspaceId: job.data.workspace_id }, () => this.process(job)), {
      connection: this.connection,
      concurrency: this.env.PROMPT_TRIGGER_CONCURRENCY,
      // A replica that dies mid-run stops renewing its locks; the run goes back to the queue.
      lockDuration: this.env.PROMPT_TRIGGER_LOCK_MS,
      stalledInterval: this.env.PROMPT_TRIGGER_LOCK_MS,
    });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'prompt trigger worker error'));
    this.worker.on('failed', (job, error) => this.logger.warn({ request_id: job?.id, attempts: job?.attemptsMade, err: error }, 'prompt trigger job failed'));
  }

  /** Runs in progress finish (within the shutdown grace) before the process leaves; waiting jobs stay queued. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    await this.callbacks.close();
    // A connection handed to BullMQ is the caller's to close.
    await this.connection?.quit().catch(() => this.connection?.disconnect());
  }

  private async process(job: Job<PromptTriggerJob>): Promise<void> {
    const trigger = job.data;
    const recorded = this.ledger.pendingRecord(trigger.request_id) ?? (await this.records.findOneBy({ id: trigger.request_id }));
    if (recorded?.status !== 'completed' && recorded?.status !== 'failed') await this.run(job);
    const record = await this.writtenRecord(trigger.request_id);
    await this.callbacks.enqueue({
      delivery_id: deliveryIdFor(trigger.request_id),
      workspace_id: trigger.workspace_id,
      request_id: trigger.request_id,
      event_type: record.status === 'completed' ? 'prompt.completed' : 'prompt.failed',
      url: trigger.callback_url,
      body: callbackBodyOf(record),
      owner: { kind: 'prompt_deployment', id: trigger.prompt_endpoint_id },
      run_ended_at: (record.endedAt ?? new Date()).toISOString(),
    });
  }

  private async run(job: Job<PromptTriggerJob>): Promise<void> {
    const trigger = job.data;
    try {
      await this.runner.invokeTriggered(trigger, this.env.PROMPT_TRIGGER_TIMEOUT_MS);
    } catch (error) {
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      // An outage (database, Redis) is retried; a run that failed for a reason is reported.
      if (!(error instanceof WaggleException) && !lastAttempt) throw error;
      const failure = error instanceof WaggleException ? error : new WaggleException('internal_server_error');
      // A run refused before it started (deleted variant, deprecated model…) has no record yet.
      if (!this.ledger.pendingRecord(trigger.request_id) && !(await this.records.existsBy({ id: trigger.request_id }))) {
        this.ledger.save(this.failedRecord(trigger, failure));
      }
      this.logger.warn({ request_id: trigger.request_id, error_code: failure.code }, 'prompt trigger run failed');
    }
  }

  /** The run's record once it is in the database: a callback never announces a result that could be lost. */
  private async writtenRecord(requestId: string): Promise<RequestRecordEntity> {
    const inMemory = this.ledger.pendingRecord(requestId);
    for (let attempt = 0; attempt < LEDGER_WRITE_ATTEMPTS && this.ledger.pendingRecord(requestId); attempt += 1) await this.ledger.flush();
    // Retried (the job throws) rather than announcing a result the database does not hold.
    if (this.ledger.pendingRecord(requestId)) throw new Error(`The ledger record of ${requestId} could not be written`);
    // Once no longer pending, the state held in memory is the state committed.
    const record = inMemory ?? (await this.records.findOneBy({ id: requestId }));
    if (!record) throw new Error(`The ledger record of ${requestId} is missing`);
    if (record.status !== 'completed' && record.status !== 'failed') throw new Error(`The ledger record of ${requestId} is ${record.status}, not finished`);
    return record;
  }

  private failedRecord(trigger: PromptTriggerJob, failure: WaggleException): RequestRecordEntity {
    const now = new Date();
    return Object.assign(new RequestRecordEntity(), {
      id: trigger.request_id,
      workspaceId: trigger.workspace_id,
      requestType: 'prompt',
      requestableType: 'prompt_deployment',
      requestableId: trigger.prompt_endpoint_id,
      deployment: null,
      variant: null,
      variantId: trigger.variant_id,
      versionId: trigger.version_id,
      version: null,
      model: null,
      status: 'failed',
      message: null,
      metadata: trigger.metadata,
      userLabel: trigger.user,
      generatedAt: new Date(trigger.accepted_at),
      startedAt: now,
      endedAt: now,
      durationMs: 0,
      usage: null,
      data: { error: failure.message, error_code: failure.code },
    } satisfies Partial<RequestRecordEntity>);
  }
}
