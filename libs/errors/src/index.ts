export { ERROR_CATALOG } from './error-catalog.data';
export type { ErrorCategory, ErrorCode, ErrorCatalogEntryData, LocalizedErrorText, SupportedLocale } from './error-catalog.data';
export {
  DEFAULT_LOCALE,
  SUPPORTED_LOCALES,
  describeErrorCode,
  errorCodeCatalog,
  errorCodes,
  resolveLocale,
  type ErrorCodeCatalog,
  type ErrorCodeEntry,
} from './error-catalog';
export { toErrorBody, type ErrorBody } from './error-body';
export {
  WaggleException,
  interpolate,
  isErrorCode,
  type ErrorParams,
  type WaggleErrorWire,
  type WaggleExceptionOptions,
} from './waggle.exception';
