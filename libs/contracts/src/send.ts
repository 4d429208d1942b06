import { WaggleException } from '@waggle/errors';
import { lastValueFrom, Observable, throwError, timeout, TimeoutError, catchError } from 'rxjs';
import { DEFAULT_RPC_TIMEOUT_MS } from './rpc-contract';
import type { RpcCallContext } from './rpc-headers';
import { RPC_CONTRACTS, type ReplyPattern, type RpcPattern, type RpcRequest, type RpcResponse, type StreamPattern } from './rpc-contracts';

/** Implemented by the platform's NATS client; kept abstract so contracts import no server code. */
export interface RpcTransport {
  /** How long a call waits when its contract declares no time-out (the app's setting); DEFAULT_RPC_TIMEOUT_MS otherwise. */
  readonly defaultTimeoutMs?: number;
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
   * deadline, so the service answers within it whatever it is.
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

/**
 * The one way to call a service: the pattern's contract says whether it answers once (a
 * promise; the time-out covers the whole answer) or streams (an observable; the time-out
 * covers the first value and then each gap between values), and how long its caller waits.
 * A time-out becomes `upstream_request_failed` (504).
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
  const timeoutMs = options.timeoutMs ?? contract.timeoutMs ?? transport.defaultTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
  const context = options.context ?? {};
  if (contract.kind === 'stream')
    return transport.request(pattern, payload, context).pipe(timeout({ each: timeoutMs }), timeoutToUpstreamFailure(pattern));
  if (transport.reply) return transport.reply(pattern, payload, context, timeoutMs);
  const reply$ = transport.request(pattern, payload, context).pipe(timeout({ first: timeoutMs }), timeoutToUpstreamFailure(pattern));
  return lastValueFrom(reply$);
}
