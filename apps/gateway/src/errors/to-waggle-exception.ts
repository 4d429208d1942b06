import { HttpException, HttpStatus } from '@nestjs/common';
import { WaggleException, type ErrorCode } from '@waggle/errors';

const CODE_FOR_HTTP_STATUS: Partial<Record<number, ErrorCode>> = {
  [HttpStatus.BAD_REQUEST]: 'invalid_request',
  [HttpStatus.UNAUTHORIZED]: 'unauthorized',
  [HttpStatus.FORBIDDEN]: 'forbidden',
  [HttpStatus.NOT_FOUND]: 'not_found',
  [HttpStatus.METHOD_NOT_ALLOWED]: 'not_found',
  [HttpStatus.UNPROCESSABLE_ENTITY]: 'validation_error',
  [HttpStatus.TOO_MANY_REQUESTS]: 'too_many_requests',
};

/**
 * A client error raised before any route runs: body-parser's (http-errors: a numeric `status`,
 * `expose: true`, and for most a `type` such as `entity.too.large`), including the ones it wraps
 * from zlib or the socket, which carry no `type` (a body that is not in its Content-Encoding,
 * one cut short or longer than its Content-Length).
 */
interface ExposedClientError {
  status: number;
  type?: unknown;
  charset?: unknown;
  encoding?: unknown;
}

function isExposedClientError(error: unknown): error is ExposedClientError {
  if (typeof error !== 'object' || error === null) return false;
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true;
}

/** What a client sent, quoted into a message: short, and text whatever it was. */
function quoted(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 64) : 'sent';
}

/** body-parser's refusal as the catalog's: the status it chose (400, 413, 415), the code and a specific message. */
function fromBodyParser(error: ExposedClientError): WaggleException {
  if (error.status === 413 || error.type === 'entity.too.large')
    return new WaggleException('validation_error', { status: 413, detail: 'request_body_too_large' });
  if (error.type === 'encoding.unsupported')
    return new WaggleException('invalid_request', {
      status: 415,
      detail: 'request_encoding_unsupported',
      params: { encoding: quoted(error.encoding) },
    });
  if (error.type === 'charset.unsupported')
    return new WaggleException('invalid_request', {
      status: 415,
      detail: 'request_charset_unsupported',
      params: { charset: quoted(error.charset) },
    });
  if (error.type === 'entity.parse.failed') return new WaggleException('invalid_request', { detail: 'request_body_not_json' });
  if (error.status === 415) return new WaggleException('invalid_request', { status: 415 });
  if (error.status === 400) return new WaggleException('invalid_request', { detail: 'request_body_unreadable' });
  return new WaggleException(CODE_FOR_HTTP_STATUS[error.status] ?? 'invalid_request');
}

/**
 * Anything thrown while serving a request, as a catalog exception. Returns undefined
 * for errors nobody anticipated: those are internal_server_error, logged with an id.
 */
export function toWaggleException(error: unknown): WaggleException | undefined {
  if (error instanceof WaggleException) return error;
  if (error instanceof HttpException) {
    const code = CODE_FOR_HTTP_STATUS[error.getStatus()];
    return code ? new WaggleException(code) : undefined;
  }
  if (isExposedClientError(error)) return fromBodyParser(error);
  return undefined;
}
