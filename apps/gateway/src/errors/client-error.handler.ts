import { toErrorBody, WaggleException } from '@waggle/errors';
import { contained } from '@waggle/platform';
import { traceresponseOf } from '@waggle/telemetry';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

const STATUS_TEXT: Readonly<Record<number, string>> = { 400: 'Bad Request', 404: 'Not Found' };

/** A whole answer written on a socket no route will see, in the catalog's shape, then the connection closed. */
function endSocketWithError(socket: Duplex, exception: WaggleException): void {
  const body = JSON.stringify(toErrorBody(exception, 'en'));
  socket.end(
    `HTTP/1.1 ${exception.status} ${STATUS_TEXT[exception.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\ntraceparent: ${traceresponseOf(undefined)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Requests that Node answers or drops before any route runs get the catalog's JSON error shape,
 * instead of Node's bare status line or a closed socket, and a `traceparent` like every other
 * answer (a fresh one: no trace began for a request never read):
 * - unparsable HTTP (a header block over the limit, a bad method, version or framing,
 *   `Content-Length` with `Transfer-Encoding`): 400 `invalid_request`;
 * - `CONNECT` (which Node hands to a 'connect' listener, and without one drops the connection):
 *   404 `not_found`, as for any method no route serves;
 * - an `Expect` header other than `100-continue`: 417 `invalid_request`.
 */
export function answerMalformedRequestsWithJson(server: Server): void {
  server.on(
    'clientError',
    contained('answering an unparsable request', (error: NodeJS.ErrnoException, socket: Duplex) => {
      if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
      }
      const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
      endSocketWithError(
        socket,
        new WaggleException('invalid_request', { detail: tooLarge ? 'request_headers_too_large' : 'request_unparsable' }),
      );
    }),
  );
  server.on(
    'connect',
    contained('answering a CONNECT request', (_request: IncomingMessage, socket: Duplex) => {
      socket.on('error', () => socket.destroy());
      endSocketWithError(socket, new WaggleException('not_found', { detail: 'request_method_unsupported', params: { method: 'CONNECT' } }));
    }),
  );
  server.on(
    'checkExpectation',
    contained('answering an Expect header', (request: IncomingMessage, response: ServerResponse) => {
      const body = JSON.stringify(
        toErrorBody(new WaggleException('invalid_request', { status: 417, detail: 'request_expectation_unsupported' }), 'en'),
      );
      response.writeHead(417, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        traceparent: traceresponseOf(undefined),
        connection: 'close',
      });
      response.end(body);
      request.resume();
    }),
  );
}
