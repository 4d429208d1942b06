import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { RUN_CANCEL_SUBJECT, type CancelRunMessage, type RunCancelReply, type RunStatus } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Subscription } from 'nats';
import { NatsRpcClient, REDIS_CLIENT } from '@waggle/platform';

/** What a run's abort signal carries: why it was stopped. */
export class RunCancelled extends Error {
  constructor(readonly reason: 'cancelled' | 'disconnected') {
    super(reason === 'cancelled' ? 'The run was cancelled' : 'The streaming client disconnected');
    this.name = 'RunCancelled';
  }
}

/** True when the signal was aborted by a cancel request (not by a disconnect, a time-out or a lost lease). */
export function isCancelledByRequest(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof RunCancelled && signal.reason.reason === 'cancelled';
}

/** A run this replica holds: its signal, and `done` with the status it settled in (answers a cancel waiting on it). */
export interface TrackedRun {
  signal: AbortSignal;
  /** Whether a cancel request (not a disconnect) stopped it. */
  readonly cancelled: boolean;
  done(status?: RunStatus): void;
}

/** How many cancelled ids each replica remembers, and for how long (a run that registers after its cancel is stopped at once). */
export const REMEMBERED_CANCELS = { max: 10_000, ttlMs: 10 * 60_000 };

interface Holding {
  controller: AbortController;
  /** Replies of cancels waiting for the run to settle. */
  replies: Array<(reply: RunCancelReply) => void>;
}

/**
 * The runs this replica holds, and their aborts. Every replica of every service that runs runs
 * hears every message on RUN_CANCEL_SUBJECT (no queue group); the one holding the run aborts it.
 * A disconnect (a streaming client left) is a published notice; a cancel request is a NATS request,
 * answered by the holder once the run settled, with its final status (replicas not holding it stay
 * silent). Every replica remembers cancelled ids for a while, so a run that registers (`track`)
 * after its cancel arrived is aborted at once: no Redis read on a sync run's hot path.
 */
@Injectable()
export class RunCancellation implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunCancellation.name);
  private readonly running = new Map<string, Holding>();
  private readonly cancelled = new LRUCache<string, true>({ max: REMEMBERED_CANCELS.max, ttl: REMEMBERED_CANCELS.ttlMs });
  private subscription?: Subscription;

  constructor(@Inject(NatsRpcClient) private readonly rpc: NatsRpcClient) {}

  onApplicationBootstrap(): void {
    this.subscription = this.rpc.subscribe<CancelRunMessage>(RUN_CANCEL_SUBJECT, (message, reply) => this.heard(message, reply));
    if (!this.subscription) throw new Error('NATS is not connected');
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  /** A signal that fires when the run is cancelled; call `done` when the run has settled. */
  track(requestId: string): TrackedRun {
    const controller = new AbortController();
    const holding: Holding = { controller, replies: [] };
    this.running.set(requestId, holding);
    if (this.cancelled.has(requestId)) controller.abort(new RunCancelled('cancelled'));
    let ended = false;
    return {
      signal: controller.signal,
      get cancelled() {
        return isCancelledByRequest(controller.signal);
      },
      done: (status) => {
        if (ended) return;
        ended = true;
        if (this.running.get(requestId) === holding) this.running.delete(requestId);
        const settled: RunStatus = status ?? (isCancelledByRequest(controller.signal) ? 'cancelled' : 'completed');
        for (const answer of holding.replies) answer({ run_status: settled });
      },
    };
  }

  /** A whole run (answered at its end) tracked from start to settlement: `completed` when it answers, `cancelled` or `failed` when it throws. */
  async tracking<T>(requestId: string, execute: (tracked: TrackedRun) => Promise<T>): Promise<T> {
    const tracked = this.track(requestId);
    let status: RunStatus = 'failed';
    try {
      const result = await execute(tracked);
      status = 'completed';
      return result;
    } catch (error) {
      if (tracked.cancelled) status = 'cancelled';
      throw error;
    } finally {
      tracked.done(status);
    }
  }

  /** Cancels a run wherever it runs (a sub-run another service holds), without waiting for it. */
  cancelElsewhere(requestId: string): void {
    this.rpc.publish(RUN_CANCEL_SUBJECT, { request_id: requestId, reason: 'cancelled' } satisfies CancelRunMessage);
  }

  private heard(message: CancelRunMessage, reply?: (value: unknown) => void): void {
    const requestId = message.request_id;
    if (typeof requestId !== 'string') return;
    const byRequest = message.reason === 'cancelled';
    if (byRequest) this.cancelled.set(requestId, true);
    const holding = this.running.get(requestId);
    if (!holding) return;
    if (byRequest && reply) holding.replies.push(reply);
    if (holding.controller.signal.aborted) return;
    this.logger.log({ msg: byRequest ? 'run stopped by a cancel' : 'run cancelled by its client', cancelled_run: requestId });
    holding.controller.abort(new RunCancelled(byRequest ? 'cancelled' : 'disconnected'));
  }
}

/** `waggle:run-cancel:<request_id>`: set by a cancel before anything else, read by every start from a queue. */
export const runCancelMarkKey = (requestId: string) => `waggle:run-cancel:${requestId}`;

/** Longer than any run can wait in a queue (a trigger's attempts, a workflow's time-out) and than an idempotent replay. */
const MARK_TTL_SECONDS = 25 * 3600;

/**
 * The durable cancel mark: a start from a queue (a trigger job, a workflow claim, the reaper)
 * that finds it refuses the run, which closes the races with queues, lease take-overs and a
 * replica that had not registered the run when the cancel was broadcast.
 */
@Injectable()
export class RunCancelMarks {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  async mark(requestId: string): Promise<void> {
    await this.redis.set(runCancelMarkKey(requestId), '1', 'EX', MARK_TTL_SECONDS);
  }

  async isMarked(requestId: string): Promise<boolean> {
    return (await this.redis.exists(runCancelMarkKey(requestId))) === 1;
  }
}

/** What a caller waiting on a cancelled run gets (a sync answer's 409, a stream's `error` event), naming the run. */
export function runCancelledError(requestId: string): WaggleException {
  return new WaggleException('run_cancelled', { extra: { request_id: requestId } });
}
