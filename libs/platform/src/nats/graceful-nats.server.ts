import { Logger } from '@nestjs/common';
import { ServerNats, type NatsOptions, type WritePacket } from '@nestjs/microservices';
import { context as otelContext, SpanStatusCode } from '@opentelemetry/api';
import { WaggleException } from '@waggle/errors';
import type { Msg, NatsConnection, Subscription as NatsSubscription } from 'nats';
import type { Observable, Subscription } from 'rxjs';
import { requestContext } from '../context/request-context';
import { startRpcScope } from './rpc-context.interceptor';
import { toRpcErrorWire } from './rpc-exception.filter';
import { endSpanWithError } from './trace-propagation';

/** A reply pattern's handler served outside Nest's pipeline: takes the raw payload (validated inside). */
export type DirectReplyHandler = (payload: unknown) => Promise<unknown>;

interface RequestPacket {
  id?: unknown;
  data?: unknown;
}

type NatsServerOptions = Required<NatsOptions>['options'];
type Respond = (packet: WritePacket) => Promise<unknown> | void;

const DECODER = new TextDecoder();
const ENCODER = new TextEncoder();

/**
 * Nest's NATS transport, with a shutdown that loses no work: on close it unsubscribes
 * first (queue-group peers take new messages), waits until every message already
 * received has been answered, or the grace period ends, then closes the connection.
 * Nest's own `gracefulShutdown` option only sleeps a fixed time.
 */
export class GracefulNatsServer extends ServerNats {
  private inflight = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly direct = new Map<string, DirectReplyHandler>();
  private readonly directLogger = new Logger('RpcExceptionFilter');

  constructor(
    options: NatsServerOptions,
    private readonly graceMs: number,
  ) {
    super(options);
  }

  get inflightCount(): number {
    return this.inflight;
  }

  /** The live connection, for readiness checks; undefined before listen and after close. */
  connection(): NatsConnection | undefined {
    try {
      return this.unwrap<NatsConnection>();
    } catch {
      return undefined;
    }
  }

  /**
   * Serves a reply pattern from the subscription itself: the same wire format, trace
   * context, request context and error envelope as Nest's pipeline (`RpcContextInterceptor`,
   * `WaggleRpcExceptionFilter`), without its per-message interceptor, pipe and rxjs
   * machinery, and one reply message. Set before `listen`; Nest still registers the
   * pattern, so the subscription is the same.
   */
  serveDirectly(pattern: string, handler: DirectReplyHandler): void {
    this.direct.set(pattern, handler);
  }

  /** The patterns `serveDirectly` was given. */
  get directPatterns(): string[] {
    return [...this.direct.keys()];
  }

  override async handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    // Counted until the reply stream ends (see send), so close() can wait for it.
    this.begin();
    try {
      const direct = natsMsg.reply ? this.direct.get(channel) : undefined;
      if (direct) return await this.handleDirectly(direct, natsMsg);
      return await super.handleMessage(channel, natsMsg);
    } finally {
      this.end();
    }
  }

  private async handleDirectly(handler: DirectReplyHandler, natsMsg: Msg): Promise<void> {
    let packet: RequestPacket;
    try {
      packet = JSON.parse(DECODER.decode(natsMsg.data)) as RequestPacket;
    } catch {
      packet = {};
    }
    // Nest's own answer to a malformed packet is none at all; the caller times out.
    if (packet.id === undefined) return;
    const { span, context, store } = startRpcScope(natsMsg.subject, natsMsg.headers);
    // Inside the caller's context, so a logged failure carries its request id and trace.
    const reply = await otelContext.with(context, () =>
      requestContext.run(store, async () => {
        try {
          const response = await handler(packet.data);
          span.setStatus({ code: SpanStatusCode.OK });
          span.end();
          return JSON.stringify({ response, isDisposed: true, id: packet.id });
        } catch (error) {
          endSpanWithError(span, error, error instanceof WaggleException ? error.code : undefined);
          return JSON.stringify({ err: toRpcErrorWire(error, natsMsg.subject, this.directLogger), isDisposed: true, id: packet.id });
        }
      }),
    );
    natsMsg.respond(ENCODER.encode(reply));
  }

  override send(stream$: Observable<unknown>, respond: Respond): Subscription {
    this.begin();
    let finished = false;
    const trackedRespond: Respond = async (packet) => {
      try {
        return await respond(packet);
      } finally {
        if (packet.isDisposed && !finished) {
          finished = true;
          this.end();
        }
      }
    };
    return super.send(stream$, trackedRespond);
  }

  override async close(): Promise<void> {
    const connection = this.connection();
    if (connection && !connection.isClosed()) {
      // Nest keeps the subscriptions private; draining them is the only way to stop intake.
      const { subscriptions } = this as unknown as { subscriptions: NatsSubscription[] };
      await Promise.all(subscriptions.map((subscription) => subscription.drain().catch(() => undefined)));
      await this.waitUntilIdle(this.graceMs);
      await connection.flush().catch(() => undefined);
    }
    await super.close();
  }

  private begin(): void {
    this.inflight += 1;
  }

  private end(): void {
    this.inflight -= 1;
    if (this.inflight === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private waitUntilIdle(limitMs: number): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, limitMs);
      timer.unref();
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
