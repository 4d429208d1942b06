import { WaggleException } from '@waggle/errors';
import { secondsSince, waggleMetrics } from '@waggle/telemetry';

/**
 * How an RPC ended, as `waggle_rpc_*_duration_seconds` label it: `ok`; `refused`, an answer
 * with a 4xx catalog error (not found, invalid input: the service worked); `timeout`, no
 * answer in time (504); `error`, anything else (a 5xx envelope, no responder, a broken reply).
 */
export type RpcOutcome = 'ok' | 'refused' | 'timeout' | 'error';

export function rpcOutcomeOf(error: unknown): Exclude<RpcOutcome, 'ok'> {
  const status = error instanceof WaggleException ? error.status : (WaggleException.fromWire(error)?.status ?? 500);
  if (status === 504) return 'timeout';
  return status < 500 ? 'refused' : 'error';
}

export function recordRpcClient(pattern: string, startedAt: number, outcome: RpcOutcome): void {
  waggleMetrics().rpcClientDuration.record(secondsSince(startedAt), { rpc_pattern: pattern, outcome });
}

export function recordRpcServer(pattern: string, startedAt: number, outcome: RpcOutcome): void {
  waggleMetrics().rpcServerDuration.record(secondsSince(startedAt), { rpc_pattern: pattern, outcome });
}
