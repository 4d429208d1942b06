import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  DEADLINE_MARGIN_MS,
  WORKFLOW_RUN_FINISHED_SUBJECT,
  type WorkflowInvokeResponse,
  type WorkflowRunFinishedMessage,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, msUntilDeadline, NatsRpcClient } from '@waggle/platform';
import type { Subscription } from 'nats';
import type { InvocationEnv } from '../../config/invocation.env';
import { isTerminalRun, syncAnswerOf } from './workflow-run-mappers';
import { WorkflowRunsRepository, type WorkflowRunRow } from './workflow-runs.repository';

/**
 * The callers of sync workflow runs, waiting on the replica that admitted their run. A run that
 * executes there is answered from memory; one that went elsewhere (its lease lost, handed to the
 * queue, queued at shutdown) is awaited by its end's announcement: woken here when this replica
 * settles it, else by the `finished` message (WORKFLOW_RUN_FINISHED_SUBJECT) of the replica that
 * did, and, since a message can be lost or come before the wait began, by a look at its row now
 * and then.
 */
@Injectable()
export class SyncRunWaiters implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Sync runs executing here: their caller is answered from memory, so their end is not broadcast. */
  private readonly answeredHere = new Set<string>();
  private subscription?: Subscription;

  constructor(
    private readonly runs: WorkflowRunsRepository,
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = this.rpc.subscribe<WorkflowRunFinishedMessage>(WORKFLOW_RUN_FINISHED_SUBJECT, (message) =>
      this.wake(message.request_id),
    );
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  /** A sync run starts executing here: its caller is answered from memory while it does. */
  executingHere(requestId: string): void {
    this.answeredHere.add(requestId);
  }

  /** It stopped executing here (settled, or gone elsewhere). */
  doneHere(requestId: string): void {
    this.answeredHere.delete(requestId);
  }

  /**
   * A run ended (announced by whoever settled it): its caller, if it waits here, is woken; a sync
   * run's end is broadcast unless its caller is answered from memory here.
   */
  ended(row: WorkflowRunRow): void {
    this.wake(row.id);
    if (!row.run_async && !this.answeredHere.has(row.id))
      this.rpc.publish(WORKFLOW_RUN_FINISHED_SUBJECT, { request_id: row.id } satisfies WorkflowRunFinishedMessage);
  }

  /**
   * The sync answer: the output, the run's failure, or (past the wait) a time-out that names the
   * request id. The wait is WORKFLOW_SYNC_TIMEOUT_MS, cut short to answer before the caller's
   * deadline (RpcHeaders.deadline), so the caller hears this answer rather than its own time-out.
   * A run that went elsewhere (`execution` answers null) is awaited by its end's announcement.
   */
  async answer(requestId: string, execution: Promise<WorkflowRunRow | null>): Promise<WorkflowInvokeResponse> {
    const callerWaitMs = msUntilDeadline();
    const waitMs = Math.min(
      this.env.WORKFLOW_SYNC_TIMEOUT_MS,
      callerWaitMs === undefined ? Infinity : Math.max(0, callerWaitMs - DEADLINE_MARGIN_MS),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), waitMs)));
    try {
      const here = await Promise.race([execution, timeout]);
      if (here !== 'timeout' && here !== null) return syncAnswerOf(here);
      if (here === null) {
        const finished = this.waitFor(requestId);
        await Promise.race([finished.done, timeout]);
        finished.cancel();
      }
    } finally {
      clearTimeout(timer);
    }
    const row = await this.runs.find(requestId);
    if (!row || !isTerminalRun(row)) {
      throw new WaggleException('upstream_request_failed', {
        status: 504,
        detail: 'workflow_sync_timeout',
        params: { seconds: Math.round(waitMs / 1000), request_id: requestId },
        extra: { request_id: requestId },
      });
    }
    return syncAnswerOf(row);
  }

  private wake(requestId: string): void {
    const waiting = this.waiters.get(requestId);
    if (!waiting) return;
    for (const resolve of waiting) resolve();
  }

  /** Resolves when the run is announced finished (or a check of its row, now and then, finds it so). */
  private waitFor(requestId: string): { done: Promise<void>; cancel: () => void } {
    let cancel: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      const waiting = this.waiters.get(requestId) ?? new Set<() => void>();
      this.waiters.set(requestId, waiting);
      // A NATS message can be lost, or have come before this wait began: the row is checked now and then too.
      const check = () =>
        void this.runs.find(requestId).then(
          (row) => row && isTerminalRun(row) && finish(),
          () => undefined,
        );
      const checks = setInterval(check, this.env.WORKFLOW_SYNC_RECHECK_MS);
      const finish = () => {
        clearInterval(checks);
        waiting.delete(finish);
        if (waiting.size === 0) this.waiters.delete(requestId);
        resolve();
      };
      waiting.add(finish);
      cancel = finish;
      check();
    });
    return { done, cancel };
  }
}
