import { Logger } from '@nestjs/common';
import { ServerNats, type NatsContext, type NatsOptions, type WritePacket } from '@nestjs/microservices';
import { context as otelContext, SpanStatusCode } from '@opentelemetry/api';
import { RpcHeaders } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection, type Subscription as NatsSubscription } from 'nats';
import type { Observable, Subscription } from 'rxjs';
import { requestContext } from '../context/request-context';
import { ClaimCheck } from './claim-check';
import { isNatsCredentialsRefusal, watchNatsCredentials, type NatsCredentialsRefused } from './nats-connection';
import { startRpcScope } from './rpc-context.interceptor';
import { recordRpcServer, rpcOutcomeOf, type RpcOutcome } from './rpc-metrics';
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
const EMPTY = new Uint8Array(0);
/** The heartbeat intervals a caller may ask for (a smaller or larger request is clamped). */
const HEARTBEAT_BOUNDS_MS = { min: 100, max: 60_000 } as const;

/**
 * Nest's NATS transport, with a shutdown that loses no work: on close it unsubscribes
 * first (queue-group peers take new messages), waits until every message already
 * received has been answered, or the grace period ends, then closes the connection.
 * Nest's own `gracefulShutdown` option only sleeps a fixed time.
 *
 * Payloads of any size cross it (requests, replies and stream events larger than the
 * server's max_payload travel as claim checks), and no message can take the process down:
 * whatever a handler or a reply fails with is answered as an error envelope, or logged
 * when even that cannot be sent.
 */
export class GracefulNatsServer extends ServerNats {
  private inflight = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly direct = new Map<string, DirectReplyHandler>();
  private readonly directLogger = new Logger('RpcExceptionFilter');
  private readonly transportLogger = new Logger(GracefulNatsServer.name);
  private readonly claims = new ClaimCheck(() => this.connection());
  /** Streams whose caller asked for heartbeats (STREAM_HEARTBEAT): reply subject → timer. */
  private readonly heartbeats = new Map<string, NodeJS.Timeout>();

  /**
   * @param options  Nest's NATS options; servers, credentials and TLS from natsConnectionOptions
   * @param onCredentialsRefused  what to do when the server refuses the credentials, at listen or
   *   on a reconnect (apps: exitOnNatsCredentialsRefused)
   */
  constructor(
    options: NatsServerOptions,
    private readonly graceMs: number,
    private readonly onCredentialsRefused?: NatsCredentialsRefused,
  ) {
    super(options);
  }

  override async createNatsClient(): Promise<NatsConnection> {
    let connection: NatsConnection;
    try {
      connection = (await super.createNatsClient()) as NatsConnection;
    } catch (error) {
      if (isNatsCredentialsRefusal(error)) this.onCredentialsRefused?.(error, 'starting');
      throw error;
    }
    watchNatsCredentials(connection, this.onCredentialsRefused);
    return connection;
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

  /**
   * Subscribes as Nest does, then waits until the server has them (a flush), so `listen`
   * resolving means a request sent next finds this process: a readiness probe that passes, or
   * a test's first call, never races the subscriptions into "no responders".
   */
  override start(callback: (err?: unknown, ...optionalParams: unknown[]) => void): void {
    super.start((error?: unknown) => {
      const connection = this.connection();
      if (error || !connection) return callback(error);
      connection.flush().then(
        () => callback(),
        (flushError: unknown) => callback(flushError),
      );
    });
  }

  /** The patterns `serveDirectly` was given. */
  get directPatterns(): string[] {
    return [...this.direct.keys()];
  }

  override async handleMessage(channel: string, received: Msg): Promise<unknown> {
    // Counted until the reply stream ends (see send), so close() can wait for it.
    this.begin();
    try {
      const natsMsg = await this.withClaimedPayload(received);
      if (!natsMsg) return undefined;
      const direct = natsMsg.reply ? this.direct.get(channel) : undefined;
      if (direct) return await this.handleDirectly(direct, natsMsg);
      return await super.handleMessage(channel, natsMsg);
    } catch (error) {
      // Nest's subscription callback drops the promise: anything thrown here would be an
      // unhandled rejection. The caller gets an error envelope, or its own time-out.
      this.transportLogger.error({ err: error, subject: received.subject }, 'a NATS message could not be handled');
      this.stopHeartbeat(received.reply);
      if (received.reply) await this.sendReply(received, this.errorPacket(error, received.subject));
      return undefined;
    } finally {
      this.end();
    }
  }

  /**
   * The message with its real payload: a claim-checked request is read from the object
   * store first (the Msg is shadowed, so Nest and the direct path see ordinary data). A
   * claim that cannot be read is answered as `upstream_request_failed` (null: nothing to do).
   */
  private async withClaimedPayload(natsMsg: Msg): Promise<Msg | null> {
    if (ClaimCheck.claimOf(natsMsg) === undefined) return natsMsg;
    try {
      const data = await this.claims.incoming(natsMsg);
      return Object.create(natsMsg, { data: { value: data } }) as Msg;
    } catch (error) {
      this.transportLogger.warn({ err: error, subject: natsMsg.subject }, 'a claim-checked request could not be read');
      if (natsMsg.reply) await this.sendReply(natsMsg, this.errorPacket(error, natsMsg.subject));
      return null;
    }
  }

  private errorPacket(error: unknown, subject: string, id?: unknown): Uint8Array {
    return ENCODER.encode(JSON.stringify({ err: toRpcErrorWire(error, subject, this.directLogger), isDisposed: true, id }));
  }

  /**
   * Sends one reply packet, through the claim check when it is too large for a message. A
   * reply that cannot be sent (the object store down, the connection closing) is answered
   * with a small error envelope instead, and if even that fails it is logged: it never throws.
   */
  private async sendReply(natsMsg: Msg, data: Uint8Array, id?: unknown, headers?: MsgHdrs): Promise<void> {
    try {
      const wire = this.claims.exceeds(data) ? await this.claims.outgoing(data, headers) : { data, headers };
      natsMsg.respond(wire.data, wire.headers ? { headers: wire.headers } : undefined);
    } catch (error) {
      this.transportLogger.error(
        { err: error, subject: natsMsg.subject, bytes: data.byteLength },
        'a NATS reply could not be sent; answering with an error',
      );
      try {
        natsMsg.respond(this.errorPacket(new WaggleException('upstream_request_failed', { cause: error }), natsMsg.subject, id));
      } catch (fallbackError) {
        this.transportLogger.error(
          { err: fallbackError, subject: natsMsg.subject },
          'a NATS reply could not be sent at all; the caller will time out',
        );
      }
    }
  }

  /** Nest's publisher for its own pipeline (streams): every packet goes through `sendReply`, in order (Nest awaits each). */
  override getPublisher(natsMsg: Msg, id: string, ctx: NatsContext): (response: WritePacket) => Promise<void> {
    if (!natsMsg.reply) return async () => undefined;
    // Before the handler runs: a caller waiting on a slow first packet still hears the stream is alive.
    this.startHeartbeat(natsMsg);
    const startedAt = performance.now();
    let ended = false;
    return async (response: WritePacket) => {
      // The last packet (or an error, which ends the stream too) stops the heartbeat.
      if (response.isDisposed || response.err !== undefined) {
        this.stopHeartbeat(natsMsg.reply);
        if (!ended)
          recordRpcServer(
            natsMsg.subject,
            startedAt,
            response.err === undefined || response.err === null ? 'ok' : rpcOutcomeOf(response.err),
          );
        ended = true;
      }
      let outgoing: { data: Uint8Array; headers?: MsgHdrs };
      try {
        outgoing = this.serializer.serialize({ ...response, id }) as typeof outgoing;
      } catch (error) {
        // A value JSON cannot carry (a BigInt, a cycle) ends the stream with an error.
        outgoing = { data: this.errorPacket(error, natsMsg.subject, id) };
      }
      this.onProcessingEndHook?.(this.transportId, ctx);
      await this.sendReply(natsMsg, outgoing.data, id, outgoing.headers);
    };
  }

  /** Heartbeats at the interval the stream's caller asked for (RpcHeaders.heartbeat), until the stream ends. */
  private startHeartbeat(natsMsg: Msg): void {
    const requested = Number(natsMsg.headers?.get(RpcHeaders.heartbeat));
    const reply = natsMsg.reply;
    if (!reply || !(requested > 0) || this.heartbeats.has(reply)) return;
    const intervalMs = Math.min(Math.max(requested, HEARTBEAT_BOUNDS_MS.min), HEARTBEAT_BOUNDS_MS.max);
    const timer = setInterval(() => {
      try {
        const headers = natsHeaders();
        headers.set(RpcHeaders.heartbeat, '1');
        natsMsg.respond(EMPTY, { headers });
      } catch {
        // The connection is closing: the caller notices the silence, as with a dead replica.
        this.stopHeartbeat(reply);
      }
    }, intervalMs);
    timer.unref();
    this.heartbeats.set(reply, timer);
  }

  private stopHeartbeat(reply: string | undefined): void {
    if (!reply) return;
    clearInterval(this.heartbeats.get(reply));
    this.heartbeats.delete(reply);
  }

  private async handleDirectly(handler: DirectReplyHandler, natsMsg: Msg): Promise<void> {
    const startedAt = performance.now();
    let outcome: RpcOutcome = 'ok';
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
          return ENCODER.encode(JSON.stringify({ response, isDisposed: true, id: packet.id }));
        } catch (error) {
          endSpanWithError(span, error, error instanceof WaggleException ? error.code : undefined);
          outcome = rpcOutcomeOf(error);
          return this.errorPacket(error, natsMsg.subject, packet.id);
        }
      }),
    );
    await this.sendReply(natsMsg, reply, packet.id);
    recordRpcServer(natsMsg.subject, startedAt, outcome);
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
    for (const reply of [...this.heartbeats.keys()]) this.stopHeartbeat(reply);
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
