import { WaggleException } from '@waggle/errors';
import { catchError, lastValueFrom, mergeMap, Observable, takeUntil, throwError, timeout, TimeoutError, timer } from 'rxjs';
import { DEFAULT_RPC_TIMEOUT_MS } from './rpc-contract';
import type { RpcCallContext } from './rpc-headers';
import { RPC_CONTRACTS, type ReplyPattern, type RpcPattern, type RpcRequest, type RpcResponse, type StreamPattern } from './rpc-contracts';

/** Implemented by the platform's NATS client; kept abstract so contracts import no server code. */
export interface RpcTransport {
  /** How long a call waits when its contract declares no time-out (the app's setting); DEFAULT_RPC_TIMEOUT_MS otherwise. */
  readonly defaultTimeoutMs?: number;
  /**
   * When the caller of the code making this call stops waiting (epoch ms): the deadline
   * (RpcHeaders.deadline) of the request being handled, if it carried one. `send` waits no
   * longer than that, so a nested call never outlives the request it serves.
   */
  callerDeadline?(): number | undefined;
  /** A streamed answer: every value, then completion (a reply pattern's one value, without `reply`). */
  request(pattern: string, payload: unknown, context: RpcCallContext): Observable<unknown>;
  /**
   * One request and its one reply, as a promise (the hot path's form: no observable per
   * call), sent with its deadline (now + timeoutMs, RpcHeaders.deadline) so the service knows
   * how long it is waited for. Failures are WaggleExceptions; a time-out is
   * `upstream_request_failed` (504). Optional: without it `send` goes through `request`.
   */
  reply?(pattern: string, payload: unknown, context: RpcCallContext, timeoutMs: number): Promise<unknown>;
}

export interface SendOptions {
  /**
   * Overrides the contract's time-out (RpcContract.timeoutMs), for a caller with a wait of its
   * own (an operator's setting, a readiness probe's budget). A reply's wait travels as its
   * deadline, so the service answers within it whatever it is. Like the contract's, it is cut
   * to what is left of the caller's own deadline (RpcTransport.callerDeadline).
   */
  timeoutMs?: number;
  context?: RpcCallContext;
}

function timeoutToUpstreamFailure(pattern: string) {
  return catchError((error: unknown) =>
    throwError(() =>
      error instanceof TimeoutError
        ? new WaggleException('upstream_request_failed', { status: 504, details: { pattern }, cause: error })
        : error,
    ),
  );
}

/** A stream that has not ended when the caller's deadline passes fails as a time-out. */
function endingBy(ms: number) {
  return takeUntil<unknown>(timer(ms).pipe(mergeMap(() => throwError(() => new TimeoutError()))));
}

/**
 * The one way to call a service: the pattern's contract says whether it answers once (a
 * promise; the time-out covers the whole answer) or streams (an observable; the time-out
 * covers the first value and then each gap between values), and how long its caller waits.
 * Made while handling a request that carries a deadline, a call waits no longer than what is
 * left of it (and a reply's own deadline is that one), whatever its contract says: a nested
 * call ends when the request it serves is no longer waited for. A time-out becomes
 * `upstream_request_failed` (504).
 */
export function send<P extends ReplyPattern>(
  transport: RpcTransport,
  pattern: P,
  payload: RpcRequest<P>,
  options?: SendOptions,
): Promise<RpcResponse<P>>;
export function send<P extends StreamPattern>(
  transport: RpcTransport,
  pattern: P,
  payload: RpcRequest<P>,
  options?: SendOptions,
): Observable<RpcResponse<P>>;
export function send(
  transport: RpcTransport,
  pattern: RpcPattern,
  payload: unknown,
  options: SendOptions = {},
): Promise<unknown> | Observable<unknown> {
  const contract = RPC_CONTRACTS[pattern];
  if (!contract) throw new Error(`${pattern} is not in the RPC contract map`);
  const waitMs = options.timeoutMs ?? contract.timeoutMs ?? transport.defaultTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
  const callerDeadline = transport.callerDeadline?.();
  const leftMs = callerDeadline === undefined ? undefined : Math.max(0, callerDeadline - Date.now());
  const timeoutMs = leftMs === undefined ? waitMs : Math.min(waitMs, leftMs);
  const context = options.context ?? {};
  if (contract.kind === 'stream') {
    const stream$ = transport.request(pattern, payload, context).pipe(timeout({ each: waitMs }));
    return (leftMs === undefined ? stream$ : stream$.pipe(endingBy(leftMs))).pipe(timeoutToUpstreamFailure(pattern));
  }
  if (leftMs === 0) return Promise.reject(new WaggleException('upstream_request_failed', { status: 504, details: { pattern } }));
  if (transport.reply) return transport.reply(pattern, payload, context, timeoutMs);
  const reply$ = transport.request(pattern, payload, context).pipe(timeout({ first: timeoutMs }), timeoutToUpstreamFailure(pattern));
  return lastValueFrom(reply$);
}
