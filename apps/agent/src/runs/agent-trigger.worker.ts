import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import {
  InvocationPatterns,
  QueueNames,
  send,
  type AgentTriggerJob,
  type CallbackBody,
  type LedgerRecord,
  type RequestLookup,
  type UsageObject,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import {
  APP_ENV,
  isTransientFailure,
  LedgerPublisher,
  NatsRpcClient,
  QueueProducer,
  QueueWorker,
  REDIS_CLIENT,
  type RequestContextStore,
} from '@waggle/platform';
import { deliveryIdFor } from '@waggle/webhooks';
import type { Job } from 'bullmq';
import type Redis from 'ioredis';
import type { AgentEnv } from '../config/agent.env';
import { AgentRunner } from './agent-runner.service';

const LEDGER_PUBLISH_ATTEMPTS = 20;
const LOOKUP_TIMEOUT_MS = 10_000;

type Finished = Pick<RequestLookup, 'status' | 'data' | 'ended_at'> & { status: 'completed' | 'failed' };

const isFinished = (record: Pick<RequestLookup, 'status'> | null | undefined): record is Finished =>
  record?.status === 'completed' || record?.status === 'failed';

/** The callback body of a finished agent run, from what its ledger record holds. */
export function agentCallbackBody(requestId: string, record: Finished, usage: UsageObject | null): CallbackBody {
  const data = record.data ?? {};
  if (record.status === 'completed') {
    return {
      event_type: 'agent.completed',
      request_id: requestId,
      data: { response: String(data.response ?? ''), usage, model: String(data.model ?? '') },
    };
  }
  return {
    event_type: 'agent.failed',
    request_id: requestId,
    data: { error: String(data.error ?? 'The run failed'), error_code: String(data.error_code ?? 'internal_server_error') },
  };
}

/**
 * Runs accepted agent webhook triggers (queue `agent-runs`), as the prompt trigger worker runs
 * prompts: at least once, the result stored in the ledger stream before its callback is
 * queued (by delivery id, so never twice), and a job that finds its run already finished
 * only queues the callback, so the model is not called again. An outage is waited out; a job
 * dead-lettered anyway leaves its run failed in the ledger, and its replay announces it.
 */
@Injectable()
export class AgentTriggerWorker extends QueueWorker<'agent-runs'> implements OnApplicationShutdown {
  private readonly callbacks: QueueProducer<'callbacks'>;

  constructor(
    private readonly runner: AgentRunner,
    private readonly ledger: LedgerPublisher,
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) env: AgentEnv,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    super({
      queue: QueueNames.agentRuns,
      redisUrl: env.REDIS_URL,
      concurrency: env.AGENT_TRIGGER_CONCURRENCY,
      lockMs: env.AGENT_TRIGGER_LOCK_MS,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    });
    this.callbacks = new QueueProducer(QueueNames.callbacks, redis);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.callbacks.close();
  }

  protected contextOf(trigger: AgentTriggerJob): RequestContextStore {
    return { requestId: trigger.request_id, workspaceId: trigger.workspace_id };
  }

  protected async process(job: Job<AgentTriggerJob>): Promise<void> {
    const trigger = job.data;
    const earlier = await this.finishedRecord(trigger);
    let usage: UsageObject | null = null;
    if (!earlier) usage = await this.run(job);
    // Once no longer pending, the state held in memory is the state stored.
    const mine = this.ledger.pendingRecord(trigger.request_id);
    // Waited out like any outage (the job goes back to the delayed set) rather than announcing a result the ledger does not hold.
    if (!(await this.ledger.stored(trigger.request_id, LEDGER_PUBLISH_ATTEMPTS))) {
      throw new WaggleException('upstream_request_failed', {
        status: 503,
        message: `The ledger record of ${trigger.request_id} could not be published yet`,
      });
    }
    const record = earlier ?? (isFinished(mine) ? mine : await this.finishedRecord(trigger));
    if (!record) throw new Error(`The ledger record of ${trigger.request_id} is not finished`);
    await this.callbacks.add(deliveryIdFor(trigger.request_id), {
      delivery_id: deliveryIdFor(trigger.request_id),
      workspace_id: trigger.workspace_id,
      request_id: trigger.request_id,
      event_type: record.status === 'completed' ? 'agent.completed' : 'agent.failed',
      url: trigger.callback_url,
      body: agentCallbackBody(trigger.request_id, record, usage ?? (record.data?.usage as UsageObject | undefined) ?? null),
      owner: { kind: 'agent', id: trigger.agent_id },
      run_ended_at: record.ended_at ?? new Date().toISOString(),
    });
  }

  /** Runs the agent; a run that failed for a reason is recorded failed (and announced), an outage retried. */
  private async run(job: Job<AgentTriggerJob>): Promise<UsageObject | null> {
    const trigger = job.data;
    try {
      return (await this.runner.invokeTriggered(trigger)).usage;
    } catch (error) {
      // An outage is waited out; an unexpected fault is tried again until the job's last attempt.
      if (isTransientFailure(error)) throw error;
      if (!(error instanceof WaggleException) && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw error;
      const failure = error instanceof WaggleException ? error : new WaggleException('internal_server_error');
      this.recordFailed(trigger, failure);
      this.logger.warn({ request_id: trigger.request_id, error_code: failure.code }, 'agent trigger run failed');
      return null;
    }
  }

  /** A dead-lettered job's run is not left `running`: it is failed in the ledger (a replay then announces it). */
  protected override async onDeadLettered(job: Job<AgentTriggerJob>): Promise<void> {
    const trigger = job.data;
    if (await this.finishedRecord(trigger)) return;
    this.recordFailed(trigger, new WaggleException('internal_server_error'));
    await this.ledger.stored(trigger.request_id, LEDGER_PUBLISH_ATTEMPTS);
  }

  /** A run refused before it started (deleted agent, deprecated model…) has no record of its run yet. */
  private recordFailed(trigger: AgentTriggerJob, failure: WaggleException): void {
    if (!isFinished(this.ledger.pendingRecord(trigger.request_id))) this.ledger.save(failedRecord(trigger, failure));
  }

  /** The run's record when it has finished: this replica's own not yet stored, else the ledger's (invocation owns it). */
  private async finishedRecord(trigger: AgentTriggerJob): Promise<Finished | null> {
    const own = this.ledger.pendingRecord(trigger.request_id);
    if (own) return isFinished(own) ? own : null;
    try {
      const stored = await send(
        this.rpc,
        InvocationPatterns.getRequest,
        { workspace_id: trigger.workspace_id, request_id: trigger.request_id },
        { timeoutMs: LOOKUP_TIMEOUT_MS },
      );
      return isFinished(stored) ? stored : null;
    } catch (error) {
      if (error instanceof WaggleException && error.code === 'not_found') return null;
      throw error;
    }
  }
}

function failedRecord(trigger: AgentTriggerJob, failure: WaggleException): LedgerRecord {
  const now = new Date().toISOString();
  return {
    request_id: trigger.request_id,
    workspace_id: trigger.workspace_id,
    request_type: 'agent',
    requestable_type: 'agent',
    requestable_id: trigger.agent_id,
    deployment: null,
    variant: null,
    variant_id: null,
    version_id: null,
    version: null,
    model: null,
    status: 'failed',
    message: trigger.message,
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
