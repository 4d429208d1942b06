import { ClientNats, NatsRecordBuilder } from '@nestjs/microservices';
import { RpcHeaders, type RpcCallContext, type RpcTransport } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { SpanStatusCode } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { ErrorCode, headers as natsHeaders, NatsError, type MsgHdrs, type NatsConnection, type Subscription } from 'nats';
import { Observable } from 'rxjs';
import { requestContext } from '../context/request-context';
import { endSpanWithError, startNatsClientSpan } from './trace-propagation';

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

/**
 * Turns whatever a NATS call failed with into a catalog exception: the service's own
 * error envelope when it sent one, otherwise `upstream_request_failed`.
 */
export function toUpstreamException(error: unknown, pattern: string): WaggleException {
  if (error instanceof WaggleException) return error;
  return (
    WaggleException.fromWire(error) ??
    new WaggleException('upstream_request_failed', { details: { pattern }, cause: error })
  );
}

/**
 * The NATS side of `sendRpc`/`streamRpc`: Nest's NATS client plus the headers every hop
 * carries (request id, workspace, W3C trace context) and a client span per request.
 */
export class NatsRpcClient implements RpcTransport {
  private readonly client: ClientNats;

  constructor(servers: string, name: string) {
    this.client = new ClientNats({ servers: servers.split(','), name, maxReconnectAttempts: -1 });
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  connection(): NatsConnection | undefined {
    try {
      return this.client.unwrap<NatsConnection>();
    } catch {
      return undefined;
    }
  }

  /**
   * Fire-and-forget message to every subscriber of a subject (no queue group), e.g. to
   * tell whichever replica runs a request that its client has gone.
   */
  publish(subject: string, payload: unknown): void {
    const connection = this.connection();
    if (!connection || connection.isClosed()) return;
    connection.publish(subject, new TextEncoder().encode(JSON.stringify(payload)));
  }

  /**
   * Every message published on a subject, parsed as JSON, on this process (no queue
   * group: each replica hears each message). Unparsable messages are dropped.
   */
  subscribe<T>(subject: string, handler: (message: T) => void): Subscription | undefined {
    const decoder = new TextDecoder();
    return this.connection()?.subscribe(subject, {
      callback: (error, message) => {
        if (error) return;
        let parsed: T;
        try {
          parsed = JSON.parse(decoder.decode(message.data)) as T;
        } catch {
          return;
        }
        handler(parsed);
      },
    });
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /**
   * One request, one reply, on the connection's shared reply subscription (no per-call
   * inbox subscription, no observable): Nest's wire format, so any handler answers it.
   */
  async send(pattern: string, payload: unknown, callContext: RpcCallContext, timeoutMs: number): Promise<unknown> {
    const connection = this.connection();
    if (!connection || connection.isClosed()) throw new WaggleException('upstream_request_failed', { details: { pattern } });
    const headers = this.headersFor(callContext);
    const span = startNatsClientSpan(pattern, headers);
    let packet: { err?: unknown; response?: unknown };
    try {
      const reply = await connection.request(pattern, ENCODER.encode(JSON.stringify({ pattern, data: payload, id: randomUUID() })), { timeout: timeoutMs, headers });
      packet = JSON.parse(DECODER.decode(reply.data)) as typeof packet;
    } catch (error) {
      const timedOut = error instanceof NatsError && error.code === ErrorCode.Timeout;
      const exception = timedOut
        ? new WaggleException('upstream_request_failed', { status: 504, details: { pattern }, cause: error })
        : toUpstreamException(error, pattern);
      endSpanWithError(span, exception, exception.code);
      throw exception;
    }
    if (packet.err !== undefined && packet.err !== null) {
      const exception = toUpstreamException(packet.err, pattern);
      endSpanWithError(span, exception, exception.code);
      throw exception;
    }
    span.setStatus({ code: SpanStatusCode.OK });
    span.end();
    return packet.response;
  }

  private headersFor(callContext: RpcCallContext): MsgHdrs {
    const headers = natsHeaders();
    const ambient = requestContext.get();
    const requestId = callContext.requestId ?? ambient?.requestId;
    const workspaceId = callContext.workspaceId ?? ambient?.workspaceId;
    if (requestId) headers.set(RpcHeaders.requestId, requestId);
    if (workspaceId) headers.set(RpcHeaders.workspaceId, workspaceId);
    return headers;
  }

  request(pattern: string, payload: unknown, callContext: RpcCallContext): Observable<unknown> {
    return new Observable<unknown>((subscriber) => {
      const headers = this.headersFor(callContext);
      const span = startNatsClientSpan(pattern, headers);
      let ended = false;
      const end = (error?: WaggleException) => {
        if (ended) return;
        ended = true;
        if (error) endSpanWithError(span, error, error.code);
        else {
          span.setStatus({ code: SpanStatusCode.OK });
          span.end();
        }
      };
      const record = new NatsRecordBuilder(payload).setHeaders(headers).build();
      const subscription = this.client.send(pattern, record).subscribe({
        next: (value) => subscriber.next(value),
        error: (error: unknown) => {
          const exception = toUpstreamException(error, pattern);
          end(exception);
          subscriber.error(exception);
        },
        complete: () => {
          end();
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        end();
      };
    });
  }
}
