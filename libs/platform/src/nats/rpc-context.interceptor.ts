import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import { context as otelContext, SpanStatusCode } from '@opentelemetry/api';
import { RpcHeaders } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { Observable } from 'rxjs';
import { requestContext } from '../context/request-context';
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
    const headers = nats.getHeaders();
    const { span, context } = startNatsServerSpan(nats.getSubject(), headers);
    const store = {
      requestId: headers?.get(RpcHeaders.requestId) || undefined,
      workspaceId: headers?.get(RpcHeaders.workspaceId) || undefined,
    };
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
