import { Catch, Logger, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { WaggleException, type WaggleErrorWire } from '@waggle/errors';
import { throwError, type Observable } from 'rxjs';
import { newErrorId } from '../context/request-context';
import { isTransientFailure } from '../reliability/failure-kind';

/**
 * The RPC side of "errors across the wire": a WaggleException travels as its wire
 * envelope; anything else is logged here with an error id and travels as
 * internal_server_error carrying only that id.
 */
@Catch()
export class WaggleRpcExceptionFilter implements RpcExceptionFilter {
  private readonly logger = new Logger('RpcExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    const pattern = host.getType() === 'rpc' ? host.switchToRpc().getContext<{ getSubject?: () => string }>().getSubject?.() : undefined;
    const wire = toRpcErrorWire(exception, pattern, this.logger);
    return throwError(() => wire);
  }
}

/**
 * What an RPC handler's failure travels as; anything but a WaggleException is logged here first.
 * A dependency's outage (PostgreSQL restarting, Redis away: the shared classification) is the
 * retryable 503 `upstream_request_failed`, not an unexpected error.
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
