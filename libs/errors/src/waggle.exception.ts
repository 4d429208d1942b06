import { ERROR_CATALOG, type ErrorCode } from './error-catalog.data';

/** Interpolation values for `%{name}` placeholders in catalog messages. */
export type ErrorParams = Readonly<Record<string, string | number>>;

export interface WaggleExceptionOptions {
  /** Raise the code with one of its catalog statuses other than the usual one. */
  status?: number;
  /** Values for the message placeholders, e.g. `{ model: 'gpt-3' }` for model_deprecated. */
  params?: ErrorParams;
  /** Machine-readable detail, e.g. the fields that failed validation. Sent to clients. */
  details?: unknown;
  /** A more specific English message than the catalog's, e.g. "Workspace not found". */
  message?: string;
  /** Extra top-level body fields the spec requires for this answer, e.g. `limit` and `current`. */
  extra?: Readonly<Record<string, string | number | boolean | null>>;
  cause?: unknown;
}

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
  /** Set when the message is a specific override rather than the catalog's text. */
  message_override?: boolean;
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
  readonly messageOverride?: string;

  constructor(code: ErrorCode, options: WaggleExceptionOptions = {}) {
    const entry = ERROR_CATALOG[code];
    super(options.message ?? interpolate(entry.text.en.message, options.params), { cause: options.cause });
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
    this.messageOverride = options.message;
  }

  toWire(): WaggleErrorWire {
    return {
      error_code: this.code,
      status: this.status,
      message: this.message,
      ...(this.details !== undefined && { details: this.details }),
      ...(this.params && { params: this.params }),
      ...(this.extra && { extra: this.extra }),
      ...(this.messageOverride !== undefined && { message_override: true }),
    };
  }

  /** Rebuilds the exception on the receiving side; anything unrecognisable yields undefined. */
  static fromWire(value: unknown): WaggleException | undefined {
    if (typeof value !== 'object' || value === null) return undefined;
    const wire = value as Partial<WaggleErrorWire>;
    if (!isErrorCode(wire.error_code)) return undefined;
    const entry = ERROR_CATALOG[wire.error_code];
    const allowed: readonly number[] = [entry.status, ...entry.alternateStatuses];
    return new WaggleException(wire.error_code, {
      status: typeof wire.status === 'number' && allowed.includes(wire.status) ? wire.status : undefined,
      params: wire.params,
      details: wire.details,
      extra: wire.extra,
      message: wire.message_override && typeof wire.message === 'string' ? wire.message : undefined,
    });
  }
}

export function interpolate(template: string, params?: ErrorParams): string {
  if (!params) return template;
  return template.replace(/%\{(\w+)\}/g, (placeholder, name: string) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : placeholder,
  );
}
