import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import { context as otelContext, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
import type { MsgHdrs } from 'nats';
import { RpcHeaders } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { Observable } from 'rxjs';
import { requestContext, type RequestContextStore } from '../context/request-context';
import { endSpanWithError, startNatsServerSpan } from './trace-propagation';

/**
 * Runs every NATS handler inside the caller's trace (a server span whose parent came in
 * the `traceparent` header) and request context, so logs and downstream calls carry
 * the same request id and trace id as the gateway.
 */
@Injectable()
export class RpcContextInterceptor implements NestInterceptor {
  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (execution.getType() !== 'rpc') return next.handle();
    const nats = execution.switchToRpc().getContext<NatsContext>();
    const { span, context, store } = startRpcScope(nats.getSubject(), nats.getHeaders());
    return new Observable((subscriber) => {
      const subscription = otelContext.with(context, () =>
        requestContext.run(store, () =>
          next.handle().subscribe({
            next: (value) => subscriber.next(value),
            error: (error: unknown) => {
              endSpanWithError(span, error, error instanceof WaggleException ? error.code : undefined);
              subscriber.error(error);
            },
            complete: () => {
              span.setStatus({ code: SpanStatusCode.OK });
              span.end();
              subscriber.complete();
            },
          }),
        ),
      );
      return () => subscription.unsubscribe();
    });
  }
}

/** The server span (child of the caller's) and the request context a received message runs in. */
export function startRpcScope(subject: string, headers: MsgHdrs | undefined): { span: Span; context: Context; store: RequestContextStore } {
  const { span, context } = startNatsServerSpan(subject, headers);
  const store = {
    requestId: headers?.get(RpcHeaders.requestId) || undefined,
    workspaceId: headers?.get(RpcHeaders.workspaceId) || undefined,
  };
  return { span, context, store };
}
