import type { BatchObservableResult } from '@opentelemetry/api';
import { waggleMeter, waggleMetrics } from '@waggle/telemetry';
import type { Queue } from 'bullmq';
import type Redis from 'ioredis';
import { withTimeout } from '../health/indicators';

/** `waggle_queue_jobs`'s states. `failed` is BullMQ's failed set; `dead_lettered` the part of it its owner still lists as dead letters. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'dead_lettered'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** A scrape never waits longer than this on Redis: a queue that does not answer is left out of it. */
const QUEUE_READ_TIMEOUT_MS = 2_000;

interface ObservedQueue {
  queue: Queue;
  /** A connection that answers ordinary commands (the worker's; BullMQ blocks on a copy of its own). */
  redis: Redis;
}

const observed = new Map<string, ObservedQueue>();
const deadLetterCounters = new Map<string, () => Promise<number>>();
let registered = false;

export interface QueueReading {
  counts: Record<QueueState, number>;
  oldestWaitingAgeSeconds: number;
}

/** One queue's gauges: counts by state and the oldest waiting job's age (since it was added, or its delay ended). */
export async function readQueue(name: string, { queue, redis }: ObservedQueue, now = Date.now()): Promise<QueueReading> {
  const counts = await queue.getJobCounts('wait', 'prioritized', 'active', 'delayed', 'failed');
  const deadLettered = deadLetterCounters.get(name);
  const [oldestId] = await queue.getRanges(['wait'], 0, 0, true);
  let oldestWaitingAgeSeconds = 0;
  if (oldestId !== undefined) {
    // Two fields of the job's hash, not the whole job (its data may be large).
    const [timestamp, delay] = await redis.hmget(queue.toKey(oldestId), 'timestamp', 'delay');
    const waitingFrom = Number(timestamp) + (Number(delay) || 0);
    if (Number.isFinite(waitingFrom) && waitingFrom > 0) oldestWaitingAgeSeconds = Math.max(0, (now - waitingFrom) / 1000);
  }
  return {
    counts: {
      waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      dead_lettered: deadLettered ? await deadLettered() : (counts.failed ?? 0),
    },
    oldestWaitingAgeSeconds,
  };
}

async function observeQueues(result: BatchObservableResult): Promise<void> {
  const { queueJobs, queueOldestWaitingAge } = waggleMetrics();
  await Promise.all(
    [...observed].map(async ([name, target]) => {
      let reading: QueueReading;
      try {
        reading = await withTimeout(readQueue(name, target), QUEUE_READ_TIMEOUT_MS, `queue ${name}`);
      } catch {
        // Redis away: no sample (a gap Prometheus shows as such) rather than a made-up zero.
        return;
      }
      for (const state of QUEUE_STATES) result.observe(queueJobs, reading.counts[state], { queue: name, state });
      result.observe(queueOldestWaitingAge, reading.oldestWaitingAgeSeconds, { queue: name });
    }),
  );
}

/**
 * Reads a queue's depth at scrape time (`waggle_queue_jobs`, `waggle_queue_oldest_waiting_age_seconds`)
 * in the app that runs its worker (QueueWorker calls it). Every replica reports the same numbers:
 * dashboards and KEDA take max() by queue. Returns what stops observing it.
 */
export function observeQueue(name: string, queue: Queue, redis: Redis): () => void {
  if (!registered) {
    const { queueJobs, queueOldestWaitingAge } = waggleMetrics();
    waggleMeter().addBatchObservableCallback(observeQueues, [queueJobs, queueOldestWaitingAge]);
    registered = true;
  }
  const entry = { queue, redis };
  observed.set(name, entry);
  return () => {
    if (observed.get(name) === entry) observed.delete(name);
  };
}

/** How a queue's owner counts its dead letters when that is not simply the failed set (QueueDeadLetters). */
export function countDeadLettersWith(name: string, count: () => Promise<number>): () => void {
  deadLetterCounters.set(name, count);
  return () => {
    if (deadLetterCounters.get(name) === count) deadLetterCounters.delete(name);
  };
}
