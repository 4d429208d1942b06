import { Logger } from '@nestjs/common';
import { ClientNats } from '@nestjs/microservices';
import { RpcHeaders, STREAM_HEARTBEAT, type RpcCallContext, type RpcTransport } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { failSpan } from '@waggle/telemetry';
import { SpanStatusCode } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import {
  createInbox,
  ErrorCode,
  headers as natsHeaders,
  NatsError,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from 'nats';
import { Observable } from 'rxjs';
import { requestContext } from '../context/request-context';
import { ClaimCheck } from './claim-check';
import {
  isNatsCredentialsRefusal,
  natsConnectionOptions,
  watchNatsCredentials,
  type NatsCredentialsRefused,
  type NatsEnv,
} from './nats-connection';
import { recordRpcClient, rpcOutcomeOf } from './rpc-metrics';
import { startNatsClientSpan } from './trace-propagation';

/** Nest's reply packet: a value, an error, or the end of the stream (possibly with its last value). */
interface ReplyPacket {
  id?: string;
  err?: unknown;
  response?: unknown;
  isDisposed?: boolean;
}

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

/**
 * Turns whatever a NATS call failed with into a catalog exception: the service's own
 * error envelope when it sent one, otherwise `upstream_request_failed`.
 */
export function toUpstreamException(error: unknown, pattern: string): WaggleException {
  if (error instanceof WaggleException) return error;
  return WaggleException.fromWire(error) ?? new WaggleException('upstream_request_failed', { details: { pattern }, cause: error });
}

/**
 * The NATS transport under `send` (the one way to call a service): Nest's NATS client plus the
 * headers every hop carries (request id, workspace, W3C trace context, a reply's deadline) and
 * a client span per request.
 */
export class NatsRpcClient implements RpcTransport {
  private readonly logger = new Logger(NatsRpcClient.name);
  private readonly client: ClientNats;
  /** Request, reply and stream payloads larger than the server's max_payload. */
  readonly claims = new ClaimCheck(() => this.connection());

  private readonly streamHeartbeat: { intervalMs: number; missedLimit: number };
  readonly defaultTimeoutMs?: number;
  private readonly onCredentialsRefused?: NatsCredentialsRefused;

  /**
   * @param env  servers, credentials and TLS (natsConnectionOptions)
   * @param options.streamHeartbeat  how often a stream's responder must show it is alive, and how many
   *   intervals of silence end the stream as timed out (tests shorten it; STREAM_HEARTBEAT otherwise)
   * @param options.onCredentialsRefused  what to do when the server refuses the credentials, at
   *   connect or on a reconnect (apps: exitOnNatsCredentialsRefused); connect() still rejects
   * @param options.defaultTimeoutMs  how long `send` waits for a pattern whose contract declares no time-out
   */
  constructor(
    env: NatsEnv,
    name: string,
    options: {
      streamHeartbeat?: { intervalMs: number; missedLimit: number };
      onCredentialsRefused?: NatsCredentialsRefused;
      defaultTimeoutMs?: number;
    } = {},
  ) {
    this.defaultTimeoutMs = options.defaultTimeoutMs;
    this.streamHeartbeat = options.streamHeartbeat ?? STREAM_HEARTBEAT;
    this.onCredentialsRefused = options.onCredentialsRefused;
    // noAsyncTraces: nats.js otherwise captures two stack traces per request (an Error kept to
    // extend a failure's stack, and the time-out's NatsError made in advance), the largest cost
    // of a send in the gateway's profile. A time-out is still a NatsError with its code (504 here).
    this.client = new ClientNats({ ...natsConnectionOptions(env), name, maxReconnectAttempts: -1, noAsyncTraces: true });
  }

  async connect(): Promise<void> {
    try {
      await this.client.connect();
    } catch (error) {
      if (isNatsCredentialsRefusal(error)) this.onCredentialsRefused?.(error, 'starting');
      throw error;
    }
    const connection = this.connection();
    if (connection) watchNatsCredentials(connection, this.onCredentialsRefused);
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
    try {
      connection.publish(subject, ENCODER.encode(JSON.stringify(payload)));
    } catch (error) {
      // A notice that cannot leave is lost like one no replica hears; the caller goes on.
      this.logger.warn({ err: error, subject }, 'a NATS notice could not be published');
    }
  }

  /**
   * Every message published on a subject, parsed as JSON, on this process (no queue
   * group: each replica hears each message). Unparsable messages are dropped. A message sent
   * as a request (broadcastRequest) comes with `reply`, which answers it as JSON.
   */
  subscribe<T>(subject: string, handler: (message: T, reply?: (value: unknown) => void) => void): Subscription | undefined {
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
        const reply = message.reply ? (value: unknown) => void message.respond(ENCODER.encode(JSON.stringify(value))) : undefined;
        handler(parsed, reply);
      },
    });
  }

  /**
   * A request to every subscriber of a subject (no queue group), answered by the first that
   * replies; undefined when none does within `timeoutMs` (those that have nothing to say stay silent).
   */
  async broadcastRequest<T>(subject: string, payload: unknown, timeoutMs: number): Promise<T | undefined> {
    const connection = this.connection();
    if (!connection || connection.isClosed()) throw new WaggleException('upstream_request_failed', { details: { subject } });
    try {
      const reply = await connection.request(subject, ENCODER.encode(JSON.stringify(payload)), { timeout: timeoutMs });
      return JSON.parse(DECODER.decode(reply.data)) as T;
    } catch (error) {
      if (error instanceof NatsError && (error.code === ErrorCode.Timeout || error.code === ErrorCode.NoResponders)) return undefined;
      throw toUpstreamException(error, subject);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** The deadline of the request this process is handling, when it carried one (`send` waits no longer). */
  callerDeadline(): number | undefined {
    return requestContext.get()?.deadlineAt;
  }

  /**
   * One request, one reply, on the connection's shared reply subscription (no per-call
   * inbox subscription, no observable): Nest's wire format, so any handler answers it. The
   * request carries its deadline (RpcHeaders.deadline), so the handler answers within the wait:
   * now + `timeoutMs`, or the caller's own deadline when that comes first.
   */
  async reply(pattern: string, payload: unknown, callContext: RpcCallContext, timeoutMs: number): Promise<unknown> {
    const startedAt = performance.now();
    const connection = this.connection();
    if (!connection || connection.isClosed()) {
      recordRpcClient(pattern, startedAt, 'error');
      throw new WaggleException('upstream_request_failed', { details: { pattern } });
    }
    const now = Date.now();
    const deadlineAt = Math.min(now + timeoutMs, this.callerDeadline() ?? Infinity);
    const waitMs = Math.max(1, deadlineAt - now);
    const headers = this.headersFor(callContext);
    headers.set(RpcHeaders.deadline, String(deadlineAt));
    const span = startNatsClientSpan(pattern, headers);
    let packet: ReplyPacket;
    try {
      let data: Uint8Array = ENCODER.encode(JSON.stringify({ pattern, data: payload, id: randomUUID() }));
      if (this.claims.exceeds(data)) data = (await this.claims.outgoing(data, headers)).data;
      const reply = await connection.request(pattern, data, { timeout: waitMs, headers }).catch((error: unknown) => {
        this.releaseUnread(headers);
        throw error;
      });
      packet = JSON.parse(DECODER.decode(await this.claims.incoming(reply))) as ReplyPacket;
    } catch (error) {
      const timedOut = error instanceof NatsError && error.code === ErrorCode.Timeout;
      const exception = timedOut
        ? new WaggleException('upstream_request_failed', { status: 504, details: { pattern }, cause: error })
        : toUpstreamException(error, pattern);
      failSpan(span, exception);
      recordRpcClient(pattern, startedAt, rpcOutcomeOf(exception));
      throw exception;
    }
    if (packet.err !== undefined && packet.err !== null) {
      const exception = toUpstreamException(packet.err, pattern);
      failSpan(span, exception);
      recordRpcClient(pattern, startedAt, rpcOutcomeOf(exception));
      throw exception;
    }
    span.setStatus({ code: SpanStatusCode.OK });
    span.end();
    recordRpcClient(pattern, startedAt, 'ok');
    return packet.response;
  }

  /** A request's stored payload that no receiver read (no responder, time-out): deleted rather than left to its TTL. */
  private releaseUnread(headers: MsgHdrs): void {
    const claim = ClaimCheck.claimOf({ data: new Uint8Array(0), headers });
    if (claim !== undefined) void this.claims.release(claim).catch(() => undefined);
  }

  private headersFor(callContext: RpcCallContext): MsgHdrs {
    const headers = natsHeaders();
    const ambient = requestContext.get();
    const requestId = callContext.requestId ?? ambient?.requestId;
    const workspaceId = callContext.workspaceId ?? ambient?.workspaceId;
    if (requestId) headers.set(RpcHeaders.requestId, requestId);
    if (workspaceId) headers.set(RpcHeaders.workspaceId, workspaceId);
    const apiKeyId = callContext.apiKeyId ?? ambient?.apiKeyId;
    if (apiKeyId) headers.set(RpcHeaders.apiKeyId, apiKeyId);
    if (callContext.creditsExhausted ?? ambient?.creditsExhausted) headers.set(RpcHeaders.creditsExhausted, '1');
    return headers;
  }

  /**
   * A streamed reply: Nest's wire format (a packet per value, then one that ends it) on an
   * inbox of its own, each packet read in order (a claim-checked one is fetched before the
   * next is looked at). No responders, or a reply that cannot be read, is
   * `upstream_request_failed`; unsubscribing stops listening. The responder sends heartbeats
   * while the stream is open, so a responder that died (after taking the request, or
   * mid-stream) ends the stream as a 504 after `missedLimit` silent intervals.
   */
  request(pattern: string, payload: unknown, callContext: RpcCallContext): Observable<unknown> {
    return new Observable<unknown>((subscriber) => {
      const startedAt = performance.now();
      const connection = this.connection();
      if (!connection || connection.isClosed()) {
        recordRpcClient(pattern, startedAt, 'error');
        subscriber.error(new WaggleException('upstream_request_failed', { details: { pattern } }));
        return undefined;
      }
      const headers = this.headersFor(callContext);
      headers.set(RpcHeaders.heartbeat, String(this.streamHeartbeat.intervalMs));
      const span = startNatsClientSpan(pattern, headers);
      const id = randomUUID();
      let ended = false;
      let silence: NodeJS.Timeout | undefined;
      const end = (error?: WaggleException) => {
        if (ended) return;
        ended = true;
        clearTimeout(silence);
        // A caller that unsubscribed before the end (a client gone) counts as ok: nothing failed.
        recordRpcClient(pattern, startedAt, error ? rpcOutcomeOf(error) : 'ok');
        if (error) failSpan(span, error);
        else {
          span.setStatus({ code: SpanStatusCode.OK });
          span.end();
        }
      };
      let replied = false;
      const fail = (error: unknown) => {
        if (!replied) this.releaseUnread(headers);
        if (subscriber.closed) return;
        const exception = toUpstreamException(error, pattern);
        end(exception);
        subscriber.error(exception);
      };
      // Messages heard so far. When the silence limit passes, the verdict waits for the I/O this
      // process has not read yet (setImmediate runs after the poll phase): after a pause of this
      // process (a long GC, a busy core) the heartbeats that came meanwhile are read first, so a
      // living stream is not ended for this side's own stall.
      let heard = 0;
      const awaitLife = () => {
        clearTimeout(silence);
        if (ended) return;
        const limitMs = this.streamHeartbeat.intervalMs * this.streamHeartbeat.missedLimit;
        const heardBefore = ++heard;
        silence = setTimeout(() => {
          setImmediate(() => {
            if (heard === heardBefore) fail(new WaggleException('upstream_request_failed', { status: 504, details: { pattern } }));
          });
        }, limitMs);
      };
      const receive = async (message: Msg) => {
        if (subscriber.closed) return;
        awaitLife();
        if (message.headers?.get(RpcHeaders.heartbeat)) return;
        if (message.data.length === 0 && ClaimCheck.claimOf(message) === undefined)
          return fail(new WaggleException('upstream_request_failed', { details: { pattern } }));
        replied = true;
        const packet = JSON.parse(DECODER.decode(await this.claims.incoming(message))) as ReplyPacket;
        if (packet.id && packet.id !== id) return;
        if (packet.err !== undefined && packet.err !== null) return fail(packet.err);
        if (!packet.isDisposed || packet.response !== undefined) subscriber.next(packet.response);
        if (packet.isDisposed) {
          end();
          subscriber.complete();
        }
      };
      let received = Promise.resolve();
      const inbox = createInbox();
      const subscription = connection.subscribe(inbox, {
        callback: (error, message) => {
          received = received.then(() => (error ? fail(error) : receive(message))).catch(fail);
        },
      });
      void (async () => {
        let data: Uint8Array = ENCODER.encode(JSON.stringify({ pattern, data: payload, id }));
        if (this.claims.exceeds(data)) data = (await this.claims.outgoing(data, headers)).data;
        connection.publish(pattern, data, { reply: inbox, headers });
        awaitLife();
      })().catch(fail);
      return () => {
        subscription.unsubscribe();
        end();
      };
    });
  }
}
