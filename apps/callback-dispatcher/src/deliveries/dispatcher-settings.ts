import type { CallbackDispatcherEnv } from '../config/callback-dispatcher.env';
import { parseDuration, parseRetrySchedule, type RetryPolicy } from './delivery-policy';

export const DISPATCHER_SETTINGS = Symbol('DISPATCHER_SETTINGS');

/** What the worker and the redelivery queue run with, read once from the env. */
export interface DispatcherSettings {
  redisUrl: string;
  /** BullMQ key prefix; producers use BullMQ's default, tests an isolated one. */
  queuePrefix: string;
  concurrency: number;
  /** BullMQ lock (and stalled-check interval) of an active delivery job. */
  lockMs: number;
  timeoutMs: number;
  retry: RetryPolicy;
  allowlist: string;
  shutdownGraceMs: number;
}

export const DEFAULT_QUEUE_PREFIX = 'bull';

export function dispatcherSettings(env: CallbackDispatcherEnv, queuePrefix: string = DEFAULT_QUEUE_PREFIX): DispatcherSettings {
  return {
    redisUrl: env.REDIS_URL,
    queuePrefix,
    concurrency: env.CALLBACK_CONCURRENCY,
    lockMs: env.CALLBACK_LOCK_MS,
    timeoutMs: env.CALLBACK_TIMEOUT_MS,
    retry: {
      schedule: parseRetrySchedule(env.CALLBACK_RETRY_SCHEDULE),
      jitter: env.CALLBACK_RETRY_JITTER,
      maxRetryAfterMs: parseDuration(env.CALLBACK_MAX_RETRY_AFTER),
    },
    allowlist: env.CALLBACK_URL_ALLOWLIST,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
  };
}
