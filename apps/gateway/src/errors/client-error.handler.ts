import { WaggleException } from '@waggle/errors';
import { contained } from '@waggle/platform';
import { traceresponseOf } from '@waggle/telemetry';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { earlyRefusal } from './early-refusal';

const STATUS_TEXT: Readonly<Record<number, string>> = { 400: 'Bad Request', 404: 'Not Found' };

/**
 * A whole answer written on a socket no route will see, then the connection closed: in the
 * shape of the surface `request`'s path names when there is one (OpenAI's under /openai/, a
 * JSON-RPC error at the MCP server's path), else in the catalog's.
 */
function endSocketWithError(socket: Duplex, exception: WaggleException, request?: IncomingMessage): void {
  const { body, headers } = earlyRefusal(exception, request);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${exception.status} ${STATUS_TEXT[exception.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\ntraceparent: ${traceresponseOf(undefined)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

/**
 * Requests that Node answers or drops before any route runs get the catalog's JSON error shape
 * (OpenAI's, with an `x-request-id`, where the path is known and names the OpenAI-compatible
 * surface), instead of Node's bare status line or a closed socket, and a `traceparent` like every other
 * answer (a fresh one: no trace began for a request never read):
 * - unparsable HTTP (a header block over the limit, a bad method, version or framing,
 *   `Content-Length` with `Transfer-Encoding`): 400 `invalid_request`, in the catalog's shape
 *   whatever the path (the parser failed before a path could be read);
 * - `CONNECT` (which Node hands to a 'connect' listener, and without one drops the connection):
 *   404 `not_found`, as for any method no route serves;
 * - an `Expect` header other than `100-continue`: 417 `invalid_request`;
 * - `Expect: 100-continue`: `100 Continue` only for a request whose answer owns the connection.
 *   Node writes it for every such request, and for one pipelined behind another it can land
 *   between that request's answer head and body, so the client cannot read the answer (RFC 9110
 *   lets a server omit it when the content was sent, as a pipelining client has).
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
    contained('answering a CONNECT request', (request: IncomingMessage, socket: Duplex) => {
      socket.on('error', () => socket.destroy());
      endSocketWithError(
        socket,
        new WaggleException('not_found', { detail: 'request_method_unsupported', params: { method: 'CONNECT' } }),
        request,
      );
    }),
  );
  server.on(
    'checkContinue',
    contained('answering Expect: 100-continue', (request: IncomingMessage, response: ServerResponse) => {
      // An answer waiting behind another (pipelined) has no socket yet: its client sent the body
      // without waiting, so no 100 is owed, and Node must not close the connection for the 100
      // it did not send (what its `_expect_continue` mark makes it do).
      if (response.socket) response.writeContinue();
      else (response as ServerResponse & { _expect_continue?: boolean })._expect_continue = false;
      server.emit('request', request, response);
    }),
  );
  server.on(
    'checkExpectation',
    contained('answering an Expect header', (request: IncomingMessage, response: ServerResponse) => {
      const { body, headers } = earlyRefusal(
        new WaggleException('invalid_request', { status: 417, detail: 'request_expectation_unsupported' }),
        request,
      );
      response.writeHead(417, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        traceparent: traceresponseOf(undefined),
        connection: 'close',
        ...headers,
      });
      response.end(body);
      request.resume();
    }),
  );
}
