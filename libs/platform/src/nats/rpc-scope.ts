import type { Logger } from '@nestjs/common';
import type { Context, Span } from '@opentelemetry/api';
import { RpcHeaders } from '@waggle/contracts';
import { WaggleException, type WaggleErrorWire } from '@waggle/errors';
import type { MsgHdrs } from 'nats';
import { newErrorId, type RequestContextStore } from '../context/request-context';
import { isTransientFailure } from '../reliability/failure-kind';
import { startNatsServerSpan } from './trace-propagation';

/**
 * The server span (child of the caller's, from the `traceparent` header) and the request
 * context a received message runs in: the caller's request id and workspace, so logs and
 * downstream calls carry them, and the caller's deadline (RpcHeaders.deadline) when it sent one.
 */
export function startRpcScope(subject: string, headers: MsgHdrs | undefined): { span: Span; context: Context; store: RequestContextStore } {
  const { span, context } = startNatsServerSpan(subject, headers);
  const deadlineAt = Number(headers?.get(RpcHeaders.deadline));
  const store: RequestContextStore = {
    requestId: headers?.get(RpcHeaders.requestId) || undefined,
    workspaceId: headers?.get(RpcHeaders.workspaceId) || undefined,
    apiKeyId: headers?.get(RpcHeaders.apiKeyId) || undefined,
    ...(headers?.get(RpcHeaders.creditsExhausted) === '1' && { creditsExhausted: true }),
    ...(deadlineAt > 0 && { deadlineAt }),
  };
  return { span, context, store };
}

/**
 * What an RPC handler's failure travels as ("errors across the wire"): a WaggleException as
 * its wire envelope; anything else is logged here first. A dependency's outage (PostgreSQL
 * restarting, Redis away: the shared classification) is the retryable 503
 * `upstream_request_failed`; anything else is internal_server_error carrying only an error id.
 */
export function toRpcErrorWire(exception: unknown, pattern: string | undefined, logger: Pick<Logger, 'error'>): WaggleErrorWire {
  if (exception instanceof WaggleException) return exception.toWire();
  if (isTransientFailure(exception)) {
    logger.error({ err: exception, pattern }, 'a dependency is unavailable; answered upstream_request_failed (503)');
    return new WaggleException('upstream_request_failed', { status: 503, details: { pattern } }).toWire();
  }
  const errorId = newErrorId();
  logger.error({ err: exception, error_id: errorId, pattern }, 'unexpected error in message handler');
  return new WaggleException('internal_server_error', { details: { error_id: errorId } }).toWire();
}
