import { ERROR_CATALOG, type ErrorCode, type SupportedLocale } from './error-catalog.data';

export const SUPPORTED_LOCALES: readonly SupportedLocale[] = ['en', 'es'];
export const DEFAULT_LOCALE: SupportedLocale = 'en';
/** The body field clients read first; `code` is its deprecated alias. */
export const ERROR_CODE_FIELD = 'error_code';
export const ERROR_CODE_COMPATIBILITY_ALIASES: readonly string[] = ['code'];

/**
 * decisions.md: every error body carries `code` (equal to `error_code`: the official
 * client SDK's typed errors read only `error` and `code`), except the concurrency-cap 429,
 * whose body the spec gives as `error` only.
 */
export const ERROR_ONLY_BODY_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['concurrency_limit_reached']);

/** The alias fields a code's error body carries besides `error_code`. */
export function fieldAliasesOf(code: ErrorCode): string[] {
  return ERROR_ONLY_BODY_CODES.has(code) ? [] : [...ERROR_CODE_COMPATIBILITY_ALIASES];
}

/** Any value that is not a supported locale falls back to English. */
export function resolveLocale(value: unknown): SupportedLocale {
  return typeof value === 'string' && (SUPPORTED_LOCALES as readonly string[]).includes(value)
    ? (value as SupportedLocale)
    : DEFAULT_LOCALE;
}

export interface ErrorCodeEntry {
  code: ErrorCode;
  status: number;
  field: string;
  message_key: string;
  message: string;
  field_aliases: string[];
  category: string;
  client_action_key: string;
  client_action: string;
}

export interface ErrorCodeCatalog {
  locale: SupportedLocale;
  default_field: string;
  compatibility_aliases: string[];
  codes: ErrorCodeEntry[];
}

export function errorCodes(): ErrorCode[] {
  return Object.keys(ERROR_CATALOG) as ErrorCode[];
}

export function describeErrorCode(code: ErrorCode, locale: SupportedLocale): ErrorCodeEntry {
  const entry = ERROR_CATALOG[code];
  const text = entry.text[locale];
  return {
    code,
    status: entry.status,
    field: ERROR_CODE_FIELD,
    message_key: `errors.codes.${code}`,
    message: text.message,
    field_aliases: fieldAliasesOf(code),
    category: entry.category,
    client_action_key: `errors.client_actions.${code}`,
    client_action: text.client_action,
  };
}

/** The public catalog as `GET /v1/error_codes` serves it. */
export function errorCodeCatalog(locale: SupportedLocale): ErrorCodeCatalog {
  return {
    locale,
    default_field: ERROR_CODE_FIELD,
    compatibility_aliases: [...ERROR_CODE_COMPATIBILITY_ALIASES],
    codes: errorCodes().map((code) => describeErrorCode(code, locale)),
  };
}
