import { ERROR_ONLY_BODY_CODES } from './error-catalog';
import type { SupportedLocale } from './error-catalog.data';
import type { WaggleException } from './waggle.exception';

/** The JSON error shape every public error answer uses (see decisions: "Error bodies"). */
export interface ErrorBody {
  error: string;
  message: string;
  error_code: string;
  /** Deprecated alias of error_code, on every body. */
  code: string;
  details?: unknown;
  errors?: unknown;
  [extra: string]: unknown;
}

/** The concurrency-cap 429: `error` and nothing else (the spec's shape). */
export interface ErrorOnlyBody {
  error: string;
}

/**
 * Shapes an exception for a client: localized message, `error` as its alias, `code` as
 * the deprecated alias of `error_code`, `errors` for validation_failed. The concurrency
 * cap answers `error` only.
 */
export function toErrorBody(exception: WaggleException, locale: SupportedLocale): ErrorBody | ErrorOnlyBody {
  const message = exception.messageIn(locale);
  if (ERROR_ONLY_BODY_CODES.has(exception.code)) return { error: message };
  const body: ErrorBody = { error: message, message, error_code: exception.code, code: exception.code };
  if (exception.details !== undefined) {
    if (exception.code === 'validation_failed') body.errors = exception.details;
    else body.details = exception.details;
  }
  if (exception.extra) Object.assign(body, exception.extra);
  return body;
}
