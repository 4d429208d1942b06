import { toErrorBody, WaggleException } from '@waggle/errors';
import { traceresponseOf } from '@waggle/telemetry';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Requests that Node rejects before any route runs (a header block over the limit,
 * unparsable HTTP) get the JSON error shape too, instead of Node's bare status line, and a
 * `traceparent` like every other answer (a fresh one: no trace began for a request never read).
 */
export function answerMalformedRequestsWithJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const detail = tooLarge ? 'request_headers_too_large' : 'request_unparsable';
    const body = JSON.stringify(toErrorBody(new WaggleException('invalid_request', { detail }), 'en'));
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\ntraceparent: ${traceresponseOf(undefined)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
