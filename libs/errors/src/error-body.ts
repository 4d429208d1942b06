import { ERROR_CATALOG, type SupportedLocale } from './error-catalog.data';
import { interpolate, type WaggleException } from './waggle.exception';

/** The JSON error shape every public error answer uses (see decisions: "Error bodies"). */
export interface ErrorBody {
  error: string;
  message: string;
  error_code: string;
  code?: string;
  details?: unknown;
  errors?: unknown;
  [extra: string]: unknown;
}

/**
 * Shapes an exception for a client: localized message, `error` as its alias, `code`
 * where the catalog says the deprecated alias is carried, `errors` for validation_failed.
 */
export function toErrorBody(exception: WaggleException, locale: SupportedLocale): ErrorBody {
  const entry = ERROR_CATALOG[exception.code];
  const message = exception.messageOverride ?? interpolate(entry.text[locale].message, exception.params);
  const body: ErrorBody = { error: message, message, error_code: exception.code };
  if ((entry.fieldAliases as readonly string[]).includes('code')) body.code = exception.code;
  if (exception.details !== undefined) {
    if (exception.code === 'validation_failed') body.errors = exception.details;
    else body.details = exception.details;
  }
  if (exception.extra) Object.assign(body, exception.extra);
  return body;
}
