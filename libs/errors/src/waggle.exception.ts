import { ERROR_CATALOG, type ErrorCode, type SupportedLocale } from './error-catalog.data';
import { ERROR_MESSAGES } from './error-messages.data';
import { errorMessage, isErrorMessageId, type ErrorDetail, type ErrorMessageId } from './error-messages';
import { interpolate, type ErrorParams } from './interpolate';

export { interpolate, type ErrorParams, type NestedText } from './interpolate';

interface CommonOptions {
  /** Raise the code with one of its catalog statuses other than the usual one. */
  status?: number;
  /** Machine-readable detail, e.g. the fields that failed validation. Sent to clients. */
  details?: unknown;
  /**
   * No free text: a message in one language would reach every workspace as it is. A more
   * specific message than the catalog's is a `detail` id (error-messages.data.ts).
   */
  message?: never;
  /** Extra top-level body fields the spec requires for this answer, e.g. `limit` and `current`. */
  extra?: Readonly<Record<string, string | number | boolean | null>>;
  cause?: unknown;
}

/** The catalog's text for the code, with values for its placeholders, e.g. `{ model: 'gpt-3' }` for model_deprecated. */
interface CatalogMessage {
  detail?: undefined;
  params?: ErrorParams;
}

export type WaggleExceptionOptions = CommonOptions & (CatalogMessage | ErrorDetail);

/**
 * What crosses a process boundary (NATS reply, BullMQ job failure) for a WaggleException.
 * Plain JSON, so any transport can carry it.
 */
export interface WaggleErrorWire {
  error_code: ErrorCode;
  status: number;
  message: string;
  details?: unknown;
  params?: ErrorParams;
  extra?: Readonly<Record<string, string | number | boolean | null>>;
  /** The specific message's id (error-messages.data.ts), rendered with `params` in the reader's language. */
  detail?: ErrorMessageId;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOG, value);
}

/**
 * The one exception type services throw. It carries a catalog code, never an HTTP
 * concern: the gateway decides the response from the code.
 */
export class WaggleException extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly params?: ErrorParams;
  readonly details?: unknown;
  readonly extra?: WaggleExceptionOptions['extra'];
  /** The specific message's id, when the catalog's text for the code is not specific enough. */
  readonly detail?: ErrorMessageId;

  constructor(code: ErrorCode, options: WaggleExceptionOptions = {}) {
    const entry = ERROR_CATALOG[code];
    super(renderMessage(code, options.detail, options.params, 'en'), { cause: options.cause });
    this.name = 'WaggleException';
    this.code = code;
    const allowed: readonly number[] = [entry.status, ...entry.alternateStatuses];
    if (options.status !== undefined && !allowed.includes(options.status)) {
      throw new TypeError(`${code} cannot be raised with status ${options.status} (allowed: ${allowed.join(', ')})`);
    }
    this.status = options.status ?? entry.status;
    this.params = options.params;
    this.details = options.details;
    this.extra = options.extra;
    this.detail = options.detail;
  }

  /** The message in a workspace's language (`message` is the English one, for logs). */
  messageIn(locale: SupportedLocale): string {
    return renderMessage(this.code, this.detail, this.params, locale);
  }

  toWire(): WaggleErrorWire {
    return {
      error_code: this.code,
      status: this.status,
      message: this.message,
      ...(this.details !== undefined && { details: this.details }),
      ...(this.params && { params: this.params }),
      ...(this.extra && { extra: this.extra }),
      ...(this.detail !== undefined && { detail: this.detail }),
    };
  }

  /** Rebuilds the exception on the receiving side; anything unrecognisable yields undefined. */
  static fromWire(value: unknown): WaggleException | undefined {
    if (typeof value !== 'object' || value === null) return undefined;
    const wire = value as Partial<WaggleErrorWire>;
    if (!isErrorCode(wire.error_code)) return undefined;
    const entry = ERROR_CATALOG[wire.error_code];
    const allowed: readonly number[] = [entry.status, ...entry.alternateStatuses];
    // The params were checked against the detail's template where the exception was raised.
    const text = { detail: isErrorMessageId(wire.detail) ? wire.detail : undefined, params: wire.params } as ErrorDetail;
    return new WaggleException(wire.error_code, {
      status: typeof wire.status === 'number' && allowed.includes(wire.status) ? wire.status : undefined,
      details: wire.details,
      extra: wire.extra,
      ...text,
    });
  }
}

function renderMessage(
  code: ErrorCode,
  detail: ErrorMessageId | undefined,
  params: ErrorParams | undefined,
  locale: SupportedLocale,
): string {
  const template = detail ? ERROR_MESSAGES[detail][locale] : ERROR_CATALOG[code].text[locale].message;
  return interpolate(template, params, (inner) => errorMessage(inner, locale));
}
