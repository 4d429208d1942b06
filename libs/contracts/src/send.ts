import { WaggleException } from '@waggle/errors';
import { lastValueFrom, Observable, throwError, timeout, TimeoutError, catchError } from 'rxjs';
import type { RpcCallContext } from './rpc-headers';
import type { ReplyPattern, RpcRequest, RpcResponse, StreamPattern } from './rpc-contracts';

/** Implemented by the platform's NATS client; kept abstract so contracts import no server code. */
export interface RpcTransport {
  request(pattern: string, payload: unknown, context: RpcCallContext): Observable<unknown>;
  /**
   * One request and its one reply, as a promise (the hot path's form: no observable per
   * call). Failures are WaggleExceptions; a time-out is `upstream_request_failed` (504).
   * Optional: without it `sendRpc` goes through `request`.
   */
  send?(pattern: string, payload: unknown, context: RpcCallContext, timeoutMs: number): Promise<unknown>;
}

export interface SendOptions {
  /** How long to wait for the (first) reply. Every call has one. */
  timeoutMs: number;
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

/** One request, one reply. A time-out becomes `upstream_request_failed` (504). */
export function sendRpc<P extends ReplyPattern>(
  transport: RpcTransport,
  pattern: P,
  payload: RpcRequest<P>,
  options: SendOptions,
): Promise<RpcResponse<P>> {
  if (transport.send) return transport.send(pattern, payload, options.context ?? {}, options.timeoutMs) as Promise<RpcResponse<P>>;
  const reply$ = transport
    .request(pattern, payload, options.context ?? {})
    .pipe(timeout({ first: options.timeoutMs }), timeoutToUpstreamFailure(pattern));
  return lastValueFrom(reply$) as Promise<RpcResponse<P>>;
}

/**
 * A streamed reply: every value the service emits, in order. The time-out applies to
 * the first value and then to each gap between values.
 */
export function streamRpc<P extends StreamPattern>(
  transport: RpcTransport,
  pattern: P,
  payload: RpcRequest<P>,
  options: SendOptions,
): Observable<RpcResponse<P>> {
  return transport
    .request(pattern, payload, options.context ?? {})
    .pipe(timeout({ each: options.timeoutMs }), timeoutToUpstreamFailure(pattern)) as Observable<RpcResponse<P>>;
}
