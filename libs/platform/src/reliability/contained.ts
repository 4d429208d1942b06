import { Logger } from '@nestjs/common';
import { newErrorId, requestContext } from '../context/request-context';

/** Where a contained failure is reported: the app's logger (Nest's, which `useLogger` points at pino). */
const logger = new Logger('Contained');

/** Tells what a contained failure happened to: the request it served, when one is known. */
export type RequestIdOf<T> = (self: T) => string | undefined;

/**
 * Logs a failure of code that nothing awaits, in the catalog's shape (`internal_server_error`
 * with an error id and the request id), and goes on. Never throws, whatever it is handed.
 */
export function reportContained(what: string, error: unknown, requestId = requestContext.get()?.requestId): void {
  try {
    logger.error(
      { err: error, error_code: 'internal_server_error', error_id: newErrorId(), ...(requestId && { request_id: requestId }) },
      `${what} failed; contained, the process goes on`,
    );
  } catch {
    // A logger that cannot write (a closed destination) has nothing better to tell.
  }
}

/**
 * The one guard for code that runs outside a request's awaited chain: `close`/`finish`/`error`
 * listeners, timers, stream and subscription callbacks, queue and connection events. What it
 * wraps may throw or return a failing promise: the failure is logged (reportContained) and
 * contained, where it would otherwise reach `uncaughtException` and end the process. `this` is
 * passed through, so a listener shared by every response stays one function.
 *
 * `requestIdOf` names the request in the log line when the listener runs outside the
 * request's context (an emitter calls its listeners in the emitter's context, not the
 * listener's); by default the context at the time of the call is used.
 */
export function contained<T, A extends unknown[]>(
  what: string,
  fn: (this: T, ...args: A) => unknown,
  requestIdOf?: RequestIdOf<T>,
): (this: T, ...args: A) => void {
  return function containedCall(this: T, ...args: A): void {
    const fail = (error: unknown) => {
      let requestId: string | undefined;
      try {
        requestId = requestIdOf?.(this);
      } catch {
        requestId = undefined;
      }
      reportContained(what, error, requestId ?? requestContext.get()?.requestId);
    };
    try {
      const result = fn.apply(this, args);
      if (result instanceof Promise) result.catch(fail);
    } catch (error) {
      fail(error);
    }
  };
}
