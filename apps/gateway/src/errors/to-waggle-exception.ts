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

/** Errors raised by body-parser before any route runs carry a `type` and a `status`. */
interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as BodyParserError).type === 'string' &&
    typeof (error as BodyParserError).status === 'number'
  );
}

/**
 * Anything thrown while serving a request, as a catalog exception. Returns undefined
 * for errors nobody anticipated: those are internal_server_error, logged with an id.
 */
export function toWaggleException(error: unknown): WaggleException | undefined {
  if (error instanceof WaggleException) return error;
  if (isBodyParserError(error)) {
    if (error.type === 'entity.too.large')
      return new WaggleException('validation_error', { status: 413, detail: 'request_body_too_large' });
    if (error.type === 'entity.parse.failed') return new WaggleException('invalid_request', { detail: 'request_body_not_json' });
    if (error.status >= 400 && error.status < 500) return new WaggleException('invalid_request');
  }
  if (error instanceof HttpException) {
    const code = CODE_FOR_HTTP_STATUS[error.getStatus()];
    if (code) return new WaggleException(code);
  }
  return undefined;
}
