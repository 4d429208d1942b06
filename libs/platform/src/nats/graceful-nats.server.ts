import { Logger } from '@nestjs/common';
import { ServerNats, type NatsOptions } from '@nestjs/microservices';
import { context as otelContext, SpanStatusCode, type Span } from '@opentelemetry/api';
import { HealthPatterns, RpcHeaders, type RpcKind } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { failSpan } from '@waggle/telemetry';
import {
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type NatsError,
  type Subscription as NatsSubscription,
} from 'nats';
import { isObservable, type Observable } from 'rxjs';
import { requestContext } from '../context/request-context';
import { Admission, type AdmissionLimits, type ShedReason } from '../overload/overload';
import { contained } from '../reliability/contained';
import { ClaimCheck } from './claim-check';
import { isNatsCredentialsRefusal, watchNatsCredentials, type NatsCredentialsRefused } from './nats-connection';
import { recordRpcServer, rpcOutcomeOf, type RpcOutcome } from './rpc-metrics';
import { startRpcScope, toRpcErrorWire } from './rpc-scope';

/**
 * A pattern's handler: takes the raw payload (validated inside) and answers once, or (a
 * stream pattern) with an observable of events.
 */
export type RpcMessageHandler = (payload: unknown) => Promise<unknown>;

interface RequestPacket {
  id?: unknown;
  data?: unknown;
}

type NatsServerOptions = Required<NatsOptions>['options'];

const DECODER = new TextDecoder();
const ENCODER = new TextEncoder();
const EMPTY = new Uint8Array(0);
/** Answered whatever the load: a loaded replica must not look like a dead one to the gateway's readiness. */
const NEVER_SHED: ReadonlySet<string> = new Set(Object.values(HealthPatterns));
/** The heartbeat intervals a caller may ask for (a smaller or larger request is clamped). */
const HEARTBEAT_BOUNDS_MS = { min: 100, max: 60_000 } as const;

/**
 * The one RPC server of every service: Nest's NATS transport for the connection and its
 * lifecycle, with every message served by our own path (`serve`), reply and stream patterns
 * alike. Each message gets, in this one place, the caller's trace and request context (and
 * deadline), its payload validated by the handler, the catalog's error envelope for whatever
 * it fails with, the RPC metrics, and for a stream the heartbeats its caller asked for. Nest's
 * RPC pipeline (message patterns, guards, interceptors, filters) is not used.
 *
 * Shutdown loses no work: on close it unsubscribes first (queue-group peers take new
 * messages), waits until every message already received has been answered (a stream to its
 * end), or the grace period ends, then closes the connection. Nest's own `gracefulShutdown`
 * option only sleeps a fixed time.
 *
 * Payloads of any size cross it (requests, replies and stream events larger than the
 * server's max_payload travel as claim checks), and no message can take the process down:
 * whatever a handler or a reply fails with is answered as an error envelope, or logged
 * when even that cannot be sent.
 *
 * Overload is shed, not queued (`admission`): past MAX_RPC_IN_FLIGHT requests in flight, or
 * while the event loop lags past MAX_EVENT_LOOP_DELAY_MS, a new request is answered at once
 * with 503 `upstream_request_failed` (its payload unread, a claim released), so work waiting
 * in this process's memory stays bounded and the caller learns at once to retry. Health pings
 * are always served.
 */
export class GracefulNatsServer extends ServerNats {
  private inflight = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly handlers = new Map<string, { kind: RpcKind; handle: RpcMessageHandler }>();
  private readonly servedSubscriptions: NatsSubscription[] = [];
  private readonly errorLogger = new Logger('RpcErrors');
  private readonly transportLogger = new Logger(GracefulNatsServer.name);
  private readonly claims = new ClaimCheck(() => this.connection());
  /** Streams whose caller asked for heartbeats (STREAM_HEARTBEAT): reply subject → timer. */
  private readonly heartbeats = new Map<string, NodeJS.Timeout>();

  private readonly queue: string | undefined;
  private readonly admission?: Admission;

  /**
   * @param options  Nest's NATS options; servers, credentials and TLS from natsConnectionOptions
   * @param onCredentialsRefused  what to do when the server refuses the credentials, at listen or
   *   on a reconnect (apps: exitOnNatsCredentialsRefused)
   * @param admission  the bounds past which requests are refused at once (none: every request is taken)
   */
  constructor(
    options: NatsServerOptions,
    private readonly graceMs: number,
    private readonly onCredentialsRefused?: NatsCredentialsRefused,
    admission?: AdmissionLimits,
  ) {
    super(options);
    this.queue = options.queue;
    if (admission) this.admission = new Admission('rpc', admission);
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
   * Answers a pattern (set before `listen`): `reply`, the handler's one result; `stream`, every
   * event of the observable the handler resolves to, then the end (or an error, which ends it too).
   */
  serve(pattern: string, kind: RpcKind, handle: RpcMessageHandler): void {
    if (this.handlers.has(pattern)) throw new Error(`${pattern} is served twice`);
    this.handlers.set(pattern, { kind, handle });
  }

  /** The patterns `serve` was given. */
  get servedPatterns(): string[] {
    return [...this.handlers.keys()];
  }

  /** Subscribes to every served pattern, in the server's queue group (Nest's own registry stays empty). */
  override bindEvents(client: NatsConnection): void {
    const queue = this.queue;
    for (const pattern of this.handlers.keys()) {
      this.servedSubscriptions.push(
        client.subscribe(pattern, {
          queue,
          callback: contained(`serving ${pattern}`, (error: NatsError | null, message: Msg) => {
            if (error) return this.transportLogger.error({ err: error, subject: pattern }, 'a NATS subscription failed');
            return this.handleMessage(pattern, message);
          }),
        }),
      );
    }
  }

  /**
   * Subscribes, then waits until the server has the subscriptions (a flush), so `listen`
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

  override async handleMessage(channel: string, received: Msg): Promise<void> {
    const admitted = this.admission && received.reply && !NEVER_SHED.has(channel) ? this.admission : undefined;
    const refused = admitted?.enter();
    if (refused) return this.shed(channel, received, refused);
    // Counted until the answer (a stream's last packet) is sent, so close() can wait for it.
    this.begin();
    try {
      const handler = this.handlers.get(channel);
      // A message without a reply subject is nobody's request: there is no one to answer.
      if (!handler || !received.reply) return;
      const natsMsg = await this.withClaimedPayload(received);
      if (!natsMsg) return;
      await this.answer(handler.kind, handler.handle, natsMsg);
    } catch (error) {
      // The subscription callback drops the promise: anything thrown here would be an
      // unhandled rejection. The caller gets an error envelope, or its own time-out.
      this.transportLogger.error({ err: error, subject: received.subject }, 'a NATS message could not be handled');
      this.stopHeartbeat(received.reply);
      if (received.reply) await this.sendReply(received, this.errorPacket(error, received.subject));
    } finally {
      admitted?.leave();
      this.end();
    }
  }

  /**
   * The overload answer, sent before anything of the request is read: an error envelope with
   * no packet id, which both kinds of caller take as the answer (a reply's is matched by its
   * subject, a stream's accepts a packet without id). A claim-checked payload nobody will
   * read is deleted rather than left to the bucket's TTL.
   */
  private shed(channel: string, received: Msg, reason: ShedReason): void {
    const claim = ClaimCheck.claimOf(received);
    if (claim !== undefined) void this.claims.release(claim).catch(() => undefined);
    const overloaded = new WaggleException('upstream_request_failed', {
      status: 503,
      detail: 'overloaded',
      details: { pattern: channel, reason },
    });
    try {
      received.respond(this.errorPacket(overloaded, received.subject));
    } catch (error) {
      this.transportLogger.error(
        { err: error, subject: received.subject },
        'an overload refusal could not be sent; the caller will time out',
      );
    }
  }

  /**
   * The message with its real payload: a claim-checked request is read from the object
   * store first (the Msg is shadowed, so the handler sees ordinary data). A claim that
   * cannot be read is answered as `upstream_request_failed` (null: nothing to do).
   */
  private async withClaimedPayload(natsMsg: Msg): Promise<Msg | null> {
    if (ClaimCheck.claimOf(natsMsg) === undefined) return natsMsg;
    try {
      const data = await this.claims.incoming(natsMsg);
      return Object.create(natsMsg, { data: { value: data } }) as Msg;
    } catch (error) {
      this.transportLogger.warn({ err: error, subject: natsMsg.subject }, 'a claim-checked request could not be read');
      await this.sendReply(natsMsg, this.errorPacket(error, natsMsg.subject));
      return null;
    }
  }

  /**
   * Runs the handler in the caller's trace and request context and sends its answer: Nest's
   * wire format (`{response, id}` per value, `isDisposed` on the last packet, `{err}` on a
   * failure), so any client of it reads the answer.
   */
  private async answer(kind: RpcKind, handle: RpcMessageHandler, natsMsg: Msg): Promise<void> {
    const startedAt = performance.now();
    let packet: RequestPacket;
    try {
      packet = JSON.parse(DECODER.decode(natsMsg.data)) as RequestPacket;
    } catch {
      packet = {};
    }
    // Nest's own answer to a malformed packet is none at all; the caller times out.
    if (packet.id === undefined) return;
    const id = packet.id;
    // Before the handler runs: a caller waiting on a slow first packet still hears the stream is alive.
    if (kind === 'stream') this.startHeartbeat(natsMsg);
    const { span, context, store } = startRpcScope(natsMsg.subject, natsMsg.headers);
    // Inside the caller's context, so a logged failure carries its request id and trace.
    const outcome = await otelContext.with(context, () =>
      requestContext.run(store, async (): Promise<RpcOutcome> => {
        try {
          const result = await handle(packet.data);
          if (kind === 'stream' && isObservable(result)) return await this.sendStream(result, natsMsg, id, span);
          span.setStatus({ code: SpanStatusCode.OK });
          span.end();
          await this.sendReply(natsMsg, this.encodePacket({ response: result, isDisposed: true, id }, natsMsg.subject), id);
          return 'ok';
        } catch (error) {
          failSpan(span, error);
          this.stopHeartbeat(natsMsg.reply);
          await this.sendReply(natsMsg, this.errorPacket(error, natsMsg.subject, id), id);
          return rpcOutcomeOf(error);
        }
      }),
    );
    recordRpcServer(natsMsg.subject, startedAt, outcome);
  }

  /**
   * Sends every event of a stream, in order (a claim-checked one is stored before the next is
   * sent), then the end; an error ends the stream as an error envelope. Resolves once the last
   * packet is out, so the message counts as in flight until then.
   */
  private sendStream(events: Observable<unknown>, natsMsg: Msg, id: unknown, span: Span): Promise<RpcOutcome> {
    let sent = Promise.resolve();
    const send = (packet: Record<string, unknown>) => {
      sent = sent.then(() => this.sendReply(natsMsg, this.encodePacket({ ...packet, id }, natsMsg.subject), id));
    };
    return new Promise<RpcOutcome>((resolve) => {
      const finish = (error?: unknown) => {
        this.stopHeartbeat(natsMsg.reply);
        if (error === undefined) {
          span.setStatus({ code: SpanStatusCode.OK });
          span.end();
          send({ isDisposed: true });
        } else {
          failSpan(span, error);
          sent = sent.then(() => this.sendReply(natsMsg, this.errorPacket(error, natsMsg.subject, id), id));
        }
        void sent.then(() => resolve(error === undefined ? 'ok' : rpcOutcomeOf(error)));
      };
      events.subscribe({ next: (response) => send({ response }), error: finish, complete: () => finish() });
    });
  }

  /** A packet as bytes; a value JSON cannot carry (a BigInt, a cycle) is sent as an error envelope instead. */
  private encodePacket(packet: Record<string, unknown>, subject: string): Uint8Array {
    try {
      return ENCODER.encode(JSON.stringify(packet));
    } catch (error) {
      return this.errorPacket(error, subject, packet.id);
    }
  }

  private errorPacket(error: unknown, subject: string, id?: unknown): Uint8Array {
    return ENCODER.encode(JSON.stringify({ err: toRpcErrorWire(error, subject, this.errorLogger), isDisposed: true, id }));
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

  override async close(): Promise<void> {
    const connection = this.connection();
    if (connection && !connection.isClosed()) {
      // Draining stops intake; what was received is still answered.
      await Promise.all(this.servedSubscriptions.map((subscription) => subscription.drain().catch(() => undefined)));
      await this.waitUntilIdle(this.graceMs);
      await connection.flush().catch(() => undefined);
    }
    for (const reply of [...this.heartbeats.keys()]) this.stopHeartbeat(reply);
    this.admission?.close();
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
