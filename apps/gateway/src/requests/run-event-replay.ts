import { Injectable } from '@nestjs/common';
import { InvocationPatterns, send } from '@waggle/contracts';
import { errorMessage, localizeStreamEvent, WaggleException } from '@waggle/errors';
import { contained, NatsRpcClient } from '@waggle/platform';
import { RUN_LOG_IDLE, RunEventLog } from '@waggle/runs';
import type { Request, Response } from 'express';
import { once } from 'node:events';
import {
  localeOf,
  openSse,
  SSE_DONE,
  SSE_KEEPALIVE_MS,
  SSE_MAX_DURATION_MS,
  SSE_PING,
  writeSseEvent,
  type SseEncoding,
} from '../streaming/sse-relay';

/** The largest sequence number a client may name (any run's events are far fewer). */
const MAX_EVENT_ID = 2 ** 31 - 1;

/**
 * The sequence number a resume starts after: the `Last-Event-ID` header (what an EventSource
 * sends when it reconnects, so it wins over the URL it reconnects to), else `?after=`, else 0.
 * Anything but a whole number is 422 `validation_error` naming where it came from.
 */
export function resumeAfter(lastEventId: string | undefined, after: string | undefined): number {
  const [field, value] = lastEventId !== undefined ? ['Last-Event-ID', lastEventId] : ['after', after];
  if (value === undefined) return 0;
  const seq = /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (Number.isSafeInteger(seq) && seq <= MAX_EVENT_ID) return seq;
  const problem = { detail: 'event_id_invalid', params: { field } } as const;
  throw new WaggleException('validation_error', { ...problem, details: [{ field, messages: [errorMessage(problem, 'en')] }] });
}

/**
 * Replays a run's kept events (RunEventLog) after a sequence number as SSE, numbered as the live
 * stream numbered them, then follows the run live to `[DONE]`, with `: ping` while it is quiet.
 * The client leaving ends the replay only: the run goes on. For the requests controller's
 * `GET /v1/public/requests/{id}/events`, and for any route that answers with a run's recorded
 * stream (an idempotent repeat of a streamed invoke).
 */
@Injectable()
export class RunEventReplay {
  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly log: RunEventLog,
  ) {}

  /** `encoding`: a route's own framing (an idempotent repeat on the OpenAI-compatible surface); unset, the native events numbered as live. */
  async replay(
    requestId: string,
    workspaceId: string,
    afterSeq: number,
    request: Request,
    response: Response,
    encoding?: SseEncoding,
  ): Promise<void> {
    await this.log.keptFor(requestId, workspaceId, () =>
      send(this.rpc, InvocationPatterns.getRequest, { workspace_id: workspaceId, request_id: requestId }),
    );
    const stop = new AbortController();
    const abort = contained(
      'ending an event replay',
      () => stop.abort(),
      () => requestId,
    );
    const deadline = setTimeout(abort, SSE_MAX_DURATION_MS);
    response.on('close', abort);
    request.socket.setTimeout(0);
    openSse(response);
    const locale = localeOf(request);
    let done = false;
    try {
      for await (const entry of this.log.entries(requestId, afterSeq, { signal: stop.signal, idleMs: SSE_KEEPALIVE_MS })) {
        if (stop.signal.aborted) break;
        if (entry === RUN_LOG_IDLE) {
          response.write(SSE_PING);
          continue;
        }
        if ('end' in entry) {
          done = true;
          break;
        }
        const written = encoding
          ? response.write(encoding.event(entry.event))
          : writeSseEvent(response, entry.seq, localizeStreamEvent(entry.event, locale));
        // A long replay waits for the client to read rather than buffering the whole run.
        if (!written && !stop.signal.aborted) await once(response, 'drain', { signal: stop.signal }).catch(() => undefined);
      }
    } catch {
      // Redis went away mid-replay: the connection ends without [DONE], and the client may resume.
    } finally {
      clearTimeout(deadline);
    }
    // Without [DONE] (the run's events expired, or the connection reached its maximum duration) the client may resume.
    if (!response.writableEnded) response.end(done ? (encoding?.done ?? SSE_DONE) : undefined);
  }
}
