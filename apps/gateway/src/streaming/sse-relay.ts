import { ERROR_CATALOG, localizeStreamEvent, resolveLocale, WaggleException } from '@waggle/errors';
import { RUN_CANCEL_SUBJECT, type CancelRunMessage } from '@waggle/contracts';
import type { NatsRpcClient } from '@waggle/platform';
import type { Request, Response } from 'express';
import type { Observable } from 'rxjs';
import type { LocalizedRequest } from '../errors/http-exception.filter';

export const SSE_KEEPALIVE_MS = 15_000;
export const SSE_MAX_DURATION_MS = 15 * 60_000;

function write(response: Response, event: unknown): void {
  response.write(`data: ${JSON.stringify(event)}\n\n`);
}

function localeOf(request: Request) {
  return resolveLocale((request as LocalizedRequest).locale);
}

function errorEvent(request: Request, requestId: string, error: unknown) {
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

/** A streaming client left: the replica holding its run stops it silently (no error event, no callback). */
export function cancelOnDisconnect(rpc: NatsRpcClient, requestId: string): void {
  rpc.publish(RUN_CANCEL_SUBJECT, { request_id: requestId, reason: 'disconnected' } satisfies CancelRunMessage);
}

/**
 * Relays a stream of events as SSE (decisions: one `data:` line per event, `data: [DONE]`
 * at the end, `: ping` every 15 s). Headers are sent with the first event, so a failure
 * before any event (an unknown deployment, say) still answers as a JSON error: the
 * promise rejects and the exception filter answers. When the client goes, the stream is
 * dropped and `onClientGone` tells the service to abort.
 */
export function relayAsSse(
  request: Request,
  response: Response,
  requestId: string,
  events: Observable<unknown>,
  onClientGone: () => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let opened = false;
    let finished = false;
    const open = () => {
      if (opened) return;
      opened = true;
      response.status(200);
      response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      response.setHeader('Cache-Control', 'no-cache, no-transform');
      response.setHeader('Connection', 'keep-alive');
      response.setHeader('X-Accel-Buffering', 'no');
      // No flushHeaders(): the event written next goes out with the headers in one packet.
      response.socket?.setNoDelay(true);
    };
    const end = () => {
      finished = true;
      clearInterval(keepAlive);
      clearTimeout(deadline);
      if (!response.writableEnded) {
        response.write('data: [DONE]\n\n');
        response.end();
      }
      resolve();
    };
    const keepAlive = setInterval(() => opened && response.write(': ping\n\n'), SSE_KEEPALIVE_MS);
    const deadline = setTimeout(() => {
      subscription.unsubscribe();
      onClientGone();
      open();
      write(
        response,
        errorEvent(request, requestId, new WaggleException('upstream_request_failed', { status: 504, detail: 'stream_too_long' })),
      );
      end();
    }, SSE_MAX_DURATION_MS);
    const subscription = events.subscribe({
      next: (event) => {
        open();
        // A service's error event carries its failure's id and parameters: rendered here in the workspace's language.
        write(response, localizeStreamEvent(event, localeOf(request)));
      },
      error: (error: unknown) => {
        if (!opened) {
          finished = true;
          clearInterval(keepAlive);
          clearTimeout(deadline);
          reject(error);
          return;
        }
        write(response, errorEvent(request, requestId, error));
        end();
      },
      complete: () => {
        open();
        end();
      },
    });
    response.on('close', () => {
      if (finished) return;
      finished = true;
      clearInterval(keepAlive);
      clearTimeout(deadline);
      subscription.unsubscribe();
      onClientGone();
      resolve();
    });
    request.socket.setTimeout(0);
  });
}
