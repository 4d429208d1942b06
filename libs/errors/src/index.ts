export { ERROR_CATALOG } from './error-catalog.data';
export type { ErrorCategory, ErrorCode, ErrorCatalogEntryData, LocalizedErrorText, SupportedLocale } from './error-catalog.data';
export {
  DEFAULT_LOCALE,
  SUPPORTED_LOCALES,
  describeErrorCode,
  errorCodeCatalog,
  errorCodes,
  ERROR_ONLY_BODY_CODES,
  fieldAliasesOf,
  resolveLocale,
  type ErrorCodeCatalog,
  type ErrorCodeEntry,
} from './error-catalog';
export { localizeStreamEvent, streamErrorEvent, type StreamErrorEvent } from './stream-error-event';
export { localizeDetails, toErrorBody, type ErrorBody, type ErrorOnlyBody, type FieldDetail } from './error-body';
export {
  WaggleException,
  interpolate,
  isErrorCode,
  type ErrorParams,
  type NestedText,
  type WaggleErrorWire,
  type WaggleExceptionOptions,
} from './waggle.exception';
export { ERROR_MESSAGES } from './error-messages.data';
export {
  errorMessage,
  errorMessageIds,
  errorMessageTemplate,
  isErrorMessageId,
  nestedMessage,
  type ErrorDetail,
  type NestedMessage,
  type ErrorMessageId,
  type ErrorMessageParams,
} from './error-messages';
