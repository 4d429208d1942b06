import { Injectable, Logger } from '@nestjs/common';
import {
  AgentPatterns,
  RUN_CANCEL_HOLDER_WAIT_MS,
  RUN_CANCEL_SUBJECT,
  send,
  TERMINAL_RUN_STATUSES,
  type CancelledRun,
  type CancelRunMessage,
  type LedgerRecord,
  type RunCancelReply,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient, requestIdTime } from '@waggle/platform';
import { LEDGER_FLUSH_INTERVAL_MS, RunCancelMarks } from '@waggle/runs';
import { setTimeout as delay } from 'node:timers/promises';
import { ExperimentRunsService } from '../experiments/experiment-runs.service';
import { RequestsService } from '../ledger/requests.service';
import { PromptTriggerWorker } from '../prompt-runs/prompt-trigger.worker';
import { WorkflowRunsService } from '../workflows/runs/workflow-runs.service';

/** A run started an instant ago may still wait in its publisher's batch: a few flushes later its record is in the ledger stream. */
const UNPUBLISHED_RECORD_WAIT_MS = 3 * LEDGER_FLUSH_INTERVAL_MS;
/** How old an id may be and still have a record on its way (its run was accepted, its record not yet published). */
const UNPUBLISHED_RECORD_WINDOW_MS = 10_000;

/**
 * Cancels a run of any kind however it was started (decisions.md, run cancellation), from the
 * ledger this service owns: a run already ended is answered as it is; otherwise the durable mark
 * is set first (every later start of the run from a queue refuses it), a run still waiting is
 * finished where it waits, and a running one is stopped by the replica holding it, which answers
 * once the run has settled. When no holder answers in time the mark stops the run at its next
 * start or claim, and the answer is `cancelled`.
 */
@Injectable()
export class RunCanceller {
  private readonly logger = new Logger(RunCanceller.name);

  constructor(
    private readonly requests: RequestsService,
    private readonly marks: RunCancelMarks,
    private readonly workflows: WorkflowRunsService,
    private readonly promptTriggers: PromptTriggerWorker,
    private readonly rpc: NatsRpcClient,
    private readonly experiments: ExperimentRunsService,
  ) {}

  async cancel(workspaceId: string, requestId: string): Promise<CancelledRun> {
    // An experiment run has no ledger record (its cells have), nor has a cell no worker has taken yet: they answer for themselves.
    const experiment = await this.experiments.cancel(workspaceId, requestId);
    if (experiment) return experiment;
    const record = await this.record(requestId);
    // Another workspace's run is not found, exactly like the lookup.
    if (record?.workspace_id !== workspaceId) throw new WaggleException('not_found', { detail: 'request_not_found' });
    if (TERMINAL_RUN_STATUSES.includes(record.status)) return { request_id: requestId, run_status: record.status };
    this.logger.log({ msg: 'run cancel requested', cancelled_run: requestId, request_type: record.request_type });
    await this.marks.mark(requestId);
    if (await this.finishedWhereItWaits(record)) {
      this.logger.log({ msg: 'queued run cancelled where it waits', cancelled_run: requestId });
      return { request_id: requestId, run_status: 'cancelled' };
    }
    const reply = await this.rpc.broadcastRequest<RunCancelReply>(
      RUN_CANCEL_SUBJECT,
      { request_id: requestId, reason: 'cancelled' } satisfies CancelRunMessage,
      RUN_CANCEL_HOLDER_WAIT_MS,
    );
    const settled = reply && TERMINAL_RUN_STATUSES.includes(reply.run_status) ? reply.run_status : 'cancelled';
    if (!reply)
      this.logger.log({ msg: 'no replica holds the cancelled run; its mark stops it at its next start', cancelled_run: requestId });
    return { request_id: requestId, run_status: settled };
  }

  /**
   * The run's record. A cancel sent right after the run was accepted (a trigger's 202, an async
   * workflow's answer) may find no record yet: it is published by the replica that accepted the run
   * within a flush, so a miss looks once more after that (only an unknown id pays the wait).
   */
  private async record(requestId: string): Promise<LedgerRecord | null> {
    const found = await this.requests.find(requestId);
    if (found) return found;
    // Only an id made an instant ago can have a record still on its way; any other missing one is not found at once.
    const madeAt = requestIdTime(requestId);
    if (madeAt === null || Date.now() - madeAt > UNPUBLISHED_RECORD_WINDOW_MS) return null;
    await delay(UNPUBLISHED_RECORD_WAIT_MS);
    return this.requests.find(requestId);
  }

  /** A run no one executes yet: a workflow run queued behind the cap, a trigger job waiting in its queue. */
  private async finishedWhereItWaits(record: LedgerRecord): Promise<boolean> {
    switch (record.request_type) {
      case 'workflow':
        return record.status === 'queued' && (await this.workflows.cancelQueued(record.request_id));
      case 'prompt':
        return this.promptTriggers.cancelWaiting(record.workspace_id, record.request_id);
      case 'agent':
        return this.agentTriggerCancelled(record);
      case 'knowledge_search':
        // An MCP client's search is never queued.
        return false;
    }
  }

  /** The agent service finishes its own waiting trigger jobs; while it is away, the mark stops the job when it is taken. */
  private async agentTriggerCancelled(record: LedgerRecord): Promise<boolean> {
    try {
      const answer = await send(this.rpc, AgentPatterns.cancelQueuedRun, {
        workspace_id: record.workspace_id,
        request_id: record.request_id,
      });
      return answer.cancelled;
    } catch (error) {
      this.logger.warn({ err: error, cancelled_run: record.request_id }, 'the agent service could not look for a waiting trigger job');
      return false;
    }
  }
}
