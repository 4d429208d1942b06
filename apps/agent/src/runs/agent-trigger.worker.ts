import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InvocationPatterns, QueueNames, send, type AgentTriggerJob, type RequestLookup } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, NatsRpcClient, QueueProcessor, type JobQueue } from '@waggle/platform';
import { LedgerPublisher, RunCancelMarks, TriggerWorker, type TriggeredRun } from '@waggle/runs';
import { deliveryIdFor } from '@waggle/webhooks';
import type { AgentEnv } from '../config/agent.env';
import { AgentRunner } from './agent-runner.service';

/** Runs accepted agent webhook triggers (queue `agent-runs`), as TriggerWorker runs every trigger. */
@Injectable()
@QueueProcessor(QueueNames.agentRuns)
export class AgentTriggerWorker extends TriggerWorker<'agent-runs'> {
  constructor(
    private readonly runner: AgentRunner,
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) env: AgentEnv,
    ledger: LedgerPublisher,
    @InjectQueue(QueueNames.callbacks) callbacks: JobQueue<'callbacks'>,
    @InjectQueue(QueueNames.agentRuns) runs: JobQueue<'agent-runs'>,
    marks: RunCancelMarks,
  ) {
    super(
      {
        queue: QueueNames.agentRuns,
        redisUrl: env.REDIS_URL,
        concurrency: env.AGENT_TRIGGER_CONCURRENCY,
        lockMs: env.AGENT_TRIGGER_LOCK_MS,
        shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      },
      ledger,
      callbacks,
      runs,
      marks,
    );
  }

  protected execute(trigger: AgentTriggerJob): Promise<unknown> {
    return this.runner.invokeTriggered(trigger);
  }

  /** Invocation owns the ledger: asked over NATS. */
  protected async storedRecord(trigger: AgentTriggerJob): Promise<RequestLookup | null> {
    try {
      return await send(this.rpc, InvocationPatterns.getRequest, { workspace_id: trigger.workspace_id, request_id: trigger.request_id });
    } catch (error) {
      if (error instanceof WaggleException && error.code === 'not_found') return null;
      throw error;
    }
  }

  protected describe(trigger: AgentTriggerJob): TriggeredRun {
    return {
      kind: 'agent',
      deliveryId: deliveryIdFor(trigger.request_id),
      owner: { kind: 'agent', id: trigger.agent_id },
      record: { requestable_type: 'agent', requestable_id: trigger.agent_id, variant_id: null, version_id: null, message: trigger.message },
    };
  }
}
