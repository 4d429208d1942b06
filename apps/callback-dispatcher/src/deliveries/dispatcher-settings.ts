import type { CallbackDispatcherEnv } from '../config/callback-dispatcher.env';
import { parseDuration, parseRetrySchedule, type RetryPolicy } from './delivery-policy';

export const DISPATCHER_SETTINGS = Symbol('DISPATCHER_SETTINGS');

/** What the worker and the redelivery queue run with, read once from the env. */
export interface DispatcherSettings {
  redisUrl: string;
  concurrency: number;
  /** BullMQ lock (and stalled-check interval) of an active delivery job. */
  lockMs: number;
  timeoutMs: number;
  retry: RetryPolicy;
  allowlist: string;
  shutdownGraceMs: number;
}

export function dispatcherSettings(env: CallbackDispatcherEnv): DispatcherSettings {
  return {
    redisUrl: env.REDIS_URL,
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
