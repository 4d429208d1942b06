import { Catch, Logger, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import { throwError, type Observable } from 'rxjs';
import { newErrorId } from '../context/request-context';

/**
 * The RPC side of "errors across the wire": a WaggleException travels as its wire
 * envelope; anything else is logged here with an error id and travels as
 * internal_server_error carrying only that id.
 */
@Catch()
export class WaggleRpcExceptionFilter implements RpcExceptionFilter {
  private readonly logger = new Logger('RpcExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (exception instanceof WaggleException) return throwError(() => exception.toWire());
    const errorId = newErrorId();
    const pattern = host.getType() === 'rpc' ? host.switchToRpc().getContext<{ getSubject?: () => string }>().getSubject?.() : undefined;
    this.logger.error({ err: exception, error_id: errorId, pattern }, 'unexpected error in message handler');
    return throwError(() => new WaggleException('internal_server_error', { details: { error_id: errorId } }).toWire());
  }
}
