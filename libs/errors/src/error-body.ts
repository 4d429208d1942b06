import { ERROR_ONLY_BODY_CODES } from './error-catalog';
import type { SupportedLocale } from './error-catalog.data';
import { errorMessage } from './error-messages';
import type { NestedText } from './interpolate';
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

/** One `details` entry naming a field: `messages` hold text, or message ids with parameters (a validation rule's). */
export interface FieldDetail {
  field: string;
  messages: Array<string | NestedText>;
}

function isMessageText(message: unknown): message is NestedText {
  return typeof message === 'object' && message !== null && typeof (message as NestedText).detail === 'string';
}

/**
 * `details` as a reader in `locale` gets them: each `messages` entry that is a message id with
 * parameters (what a validation failure carries across processes) rendered in that language,
 * text left as it is. Anything else is returned unchanged.
 */
export function localizeDetails(details: unknown, locale: SupportedLocale): unknown {
  if (!Array.isArray(details) || !details.some((entry) => Array.isArray((entry as Partial<FieldDetail> | null)?.messages))) return details;
  return details.map((entry: unknown) => {
    const messages = (entry as Partial<FieldDetail> | null)?.messages;
    if (!Array.isArray(messages) || !messages.some(isMessageText)) return entry;
    return {
      ...(entry as FieldDetail),
      messages: messages.map((message) => (isMessageText(message) ? errorMessage(message, locale) : message)),
    };
  });
}

/**
 * Shapes an exception for a client: localized message, `error` as its alias, `code` as
 * the deprecated alias of `error_code`, `errors` for validation_failed, the messages of
 * `details` in the same language. The concurrency cap answers `error` only.
 */
export function toErrorBody(exception: WaggleException, locale: SupportedLocale): ErrorBody | ErrorOnlyBody {
  const message = exception.messageIn(locale);
  if (ERROR_ONLY_BODY_CODES.has(exception.code)) return { error: message };
  const body: ErrorBody = { error: message, message, error_code: exception.code, code: exception.code };
  if (exception.details !== undefined) {
    const details = localizeDetails(exception.details, locale);
    if (exception.code === 'validation_failed') body.errors = details;
    else body.details = details;
  }
  if (exception.extra) Object.assign(body, exception.extra);
  return body;
}
