import { RUN_CANCEL_SUBJECT, type CancelRunMessage } from '@waggle/contracts';
import { ERROR_CATALOG, localizeStreamEvent, resolveLocale, WaggleException } from '@waggle/errors';
import { contained, type NatsRpcClient } from '@waggle/platform';
import { RUN_EVENTS_KEPT_AFTER_END_MS } from '@waggle/runs';
import type { Request, Response } from 'express';
import type { Observable } from 'rxjs';
import type { LocalizedRequest } from '../errors/http-exception.filter';
import { IDEMPOTENCY_RECORD_TTL_MS, idempotencyClaimOf } from '../idempotency/idempotency-records';

export const SSE_KEEPALIVE_MS = 15_000;
export const SSE_MAX_DURATION_MS = 15 * 60_000;

/**
 * One event: `id: <seq>` (from 1, in order; a replay numbers every event as the live stream
 * did) and its `data:` line. Answers false when the socket's buffer is full (see `drained`).
 */
export function writeSseEvent(response: Response, seq: number, event: unknown): boolean {
  return response.write(`id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`);
}

/**
 * The end of a stream. It carries no id: it is not an event of the run, and a client that saw
 * the last event but not this line resumes after that event and gets it again, so every
 * stream, live or resumed, ends with it.
 */
export const SSE_DONE = 'data: [DONE]\n\n';
export const SSE_PING = ': ping\n\n';

/** The headers of an event stream, sent with the first event (no flushHeaders: one packet). */
export function openSse(response: Response): void {
  response.status(200);
  response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  response.setHeader('Cache-Control', 'no-cache, no-transform');
  // No Connection header of its own: Node's keeps the connection open unless the client asked
  // to close it (or spoke HTTP/1.0); a forced keep-alive left such a connection open after the
  // answer, and an answer to HEAD, which has no body to end it, never seen as over.
  response.setHeader('X-Accel-Buffering', 'no');
  response.socket?.setNoDelay(true);
}

export function localeOf(request: Request) {
  return resolveLocale((request as LocalizedRequest).locale);
}

export function errorEvent(request: Request, requestId: string, error: unknown) {
  const exception = error instanceof WaggleException ? error : new WaggleException('internal_server_error');
  const message = exception.messageIn(localeOf(request));
  return {
    request_id: requestId,
    type: 'error',
    error: message,
    message,
    error_code: exception.code,
    error_type: ERROR_CATALOG[exception.code].category,
    status_code: exception.status,
  };
}

/**
 * How a run's events are written on one stream: the native routes' `id:`/`data:` events, or a
 * surface's own framing (the OpenAI-compatible chunks). Made per stream: an encoding may keep
 * state (a sequence, the chunks' shared id).
 */
export interface SseEncoding {
  /** The frames of one event of the run ('' to send nothing for it). */
  event(event: unknown): string;
  /** The frame of a failure after the first byte (the run's own error events are events). */
  failure(error: unknown): string;
  /** What ends a finished stream (`data: [DONE]`); '' for nothing. */
  readonly done: string;
}

/** The native routes' events: each with its `id: <seq>`, rendered in the workspace's language; `[DONE]` at the end. */
export function nativeSse(request: Request, requestId: string): SseEncoding {
  let seq = 0;
  const frame = (event: unknown) => `id: ${++seq}\ndata: ${JSON.stringify(event)}\n\n`;
  return {
    // A service's error event carries its failure's id and parameters: rendered here in the workspace's language.
    event: (event) => frame(localizeStreamEvent(event, localeOf(request))),
    failure: (error) => frame(errorEvent(request, requestId, error)),
    done: SSE_DONE,
  };
}

/** A route's own stream encoding, by path, for what answers a stream outside its controller (an idempotent repeat's replay). */
const ROUTE_ENCODINGS = new Map<string, (request: Request, requestId: string) => SseEncoding>();

/** Declares the encoding of a route whose streams are not the native events (the OpenAI-compatible surface's). */
export function registerRouteEncoding(path: string, encoding: (request: Request, requestId: string) => SseEncoding): void {
  ROUTE_ENCODINGS.set(path, encoding);
}

/** The encoding a route's streams use; undefined for the native events. */
export function routeEncodingOf(request: Request, requestId: string): SseEncoding | undefined {
  return ROUTE_ENCODINGS.get(request.path)?.(request, requestId);
}

/** A streaming client left: the replica holding its run stops it silently (no error event, no callback). */
export function cancelOnDisconnect(rpc: NatsRpcClient, requestId: string): void {
  rpc.publish(RUN_CANCEL_SUBJECT, { request_id: requestId, reason: 'disconnected' } satisfies CancelRunMessage);
}

/**
 * Relays a stream of events as SSE (decisions: one `data:` line per event, each with its
 * `id: <seq>`, `data: [DONE]` at the end, `: ping` every 15 s). Headers are sent with the
 * first event, so a failure before any event (an unknown deployment, say) still answers as a
 * JSON error: the promise rejects and the exception filter answers. When the client goes, the
 * stream is dropped and `onClientGone` tells the service to abort.
 *
 * A background stream passes no `onClientGone`: the run outlives this connection (the service
 * keeps its events), so neither the client leaving nor the stream's maximum duration stops it;
 * at that maximum the connection ends without `[DONE]`, and the client resumes the run with
 * `GET /v1/public/requests/{id}/events`.
 */
export function relayAsSse(
  request: Request,
  response: Response,
  requestId: string,
  events: Observable<unknown>,
  onClientGone?: () => void,
  encoding: SseEncoding = nativeSse(request, requestId),
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let opened = false;
    let finished = false;
    const open = () => {
      if (opened) return;
      opened = true;
      openSse(response);
    };
    const write = (frames: string) => frames && response.write(frames);
    const end = (done = true) => {
      finished = true;
      clearInterval(keepAlive);
      clearTimeout(deadline);
      const close = () => {
        if (!response.writableEnded) {
          if (done && encoding.done) response.write(encoding.done);
          response.end();
        }
        resolve();
      };
      // An idempotent stream's answer is kept before [DONE] goes out, so a repeat sent on it finds it.
      const claim = idempotencyClaimOf(request);
      if (claim) void claim.streamEnded().finally(close);
      else close();
    };
    // Everything below runs outside the request's awaited chain (timers, the stream's callbacks,
    // the close listener): each behind the one guard, so a failure ends this stream, not the process.
    const guard = <A extends unknown[]>(what: string, fn: (...args: A) => void) =>
      contained(`the SSE relay's ${what}`, fn, () => requestId);
    const keepAlive = setInterval(
      guard('keep-alive', () => opened && response.write(SSE_PING)),
      SSE_KEEPALIVE_MS,
    );
    const deadline = setTimeout(
      guard('deadline', () => {
        subscription.unsubscribe();
        open();
        if (!onClientGone) return end(false);
        onClientGone();
        write(encoding.failure(new WaggleException('upstream_request_failed', { status: 504, detail: 'stream_too_long' })));
        end();
      }),
      SSE_MAX_DURATION_MS,
    );
    const subscription = events.subscribe({
      next: guard('event', (event: unknown) => {
        open();
        write(encoding.event(event));
      }),
      error: guard('failure', (error: unknown) => {
        if (!opened) {
          finished = true;
          clearInterval(keepAlive);
          clearTimeout(deadline);
          reject(error);
          return;
        }
        write(encoding.failure(error));
        end();
      }),
      complete: guard('end', () => {
        open();
        end();
      }),
    });
    response.on(
      'close',
      guard('client leaving', () => {
        if (finished) return;
        finished = true;
        clearInterval(keepAlive);
        clearTimeout(deadline);
        subscription.unsubscribe();
        onClientGone?.();
        void idempotencyClaimOf(request)?.streamEnded();
        resolve();
      }),
    );
    request.socket.setTimeout(0);
  });
}

/**
 * A prompt's or an agent's streamed run, relayed. Its events are kept by the service when the
 * stream must outlive this connection: a background stream's for an hour after the run (resumed
 * with `GET /v1/public/requests/{id}/events`), a stream started with an Idempotency-Key's as long
 * as the key (its repeat replays them). Without `background` the client leaving cancels the run.
 */
export function relayRunStream(
  rpc: NatsRpcClient,
  request: Request,
  response: Response,
  requestId: string,
  background: boolean,
  start: (keepEventsMs: number | undefined) => Observable<unknown>,
  encoding?: SseEncoding,
): Promise<void> {
  const keepEventsMs = idempotencyClaimOf(request) ? IDEMPOTENCY_RECORD_TTL_MS : background ? RUN_EVENTS_KEPT_AFTER_END_MS : undefined;
  const cancel = background ? undefined : () => cancelOnDisconnect(rpc, requestId);
  return relayAsSse(request, response, requestId, start(keepEventsMs), cancel, encoding);
}
