import type { SupportedLocale } from './error-catalog.data';
import { ERROR_MESSAGES } from './error-messages.data';
import { interpolate, type NestedText } from './interpolate';

export type ErrorMessageId = keyof typeof ERROR_MESSAGES;

/** The `%{name}` placeholders of a template, as a union of names. */
type Placeholders<Template extends string> = Template extends `${string}%{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/**
 * A message of this catalog used inside another, e.g. as its `%{reason}`, so that a component
 * explaining a refusal (a URL policy, a validator) says why in the reader's language too.
 * Build one with `nestedMessage`, which checks its parameters.
 */
export interface NestedMessage {
  readonly detail: ErrorMessageId;
  readonly params?: Readonly<Record<string, string | number | NestedMessage>>;
}

/** The values an id's template needs: exactly its placeholders (text, a number, or a nested message). */
export type ErrorMessageParams<Id extends ErrorMessageId> = {
  readonly [Name in Placeholders<(typeof ERROR_MESSAGES)[Id]['en']>]: string | number | NestedMessage;
};

/**
 * A specific message by id, with its parameters when the template has any. Spread into
 * WaggleException's options: `{ detail: 'plan_not_found', params: { key } }`.
 */
export type ErrorDetail = {
  [Id in ErrorMessageId]: [Placeholders<(typeof ERROR_MESSAGES)[Id]['en']>] extends [never]
    ? { detail: Id; params?: undefined }
    : { detail: Id; params: ErrorMessageParams<Id> };
}[ErrorMessageId];

export function isErrorMessageId(value: unknown): value is ErrorMessageId {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_MESSAGES, value);
}

export function errorMessageIds(): ErrorMessageId[] {
  return Object.keys(ERROR_MESSAGES) as ErrorMessageId[];
}

/** The template of a message id in a locale. */
export function errorMessageTemplate(id: ErrorMessageId, locale: SupportedLocale): string {
  return ERROR_MESSAGES[id][locale];
}

/** A message to nest in another's parameters, its own parameters checked against its template. */
export function nestedMessage(text: ErrorDetail): NestedMessage {
  return text;
}

/**
 * A specific message rendered in a locale (the same `%{name}` interpolation as the catalog),
 * nested messages in the same locale. An unknown nested id (from an older or newer peer)
 * stands in as it is.
 */
export function errorMessage(text: ErrorDetail | NestedText, locale: SupportedLocale): string {
  if (!isErrorMessageId(text.detail)) return text.detail;
  return interpolate(ERROR_MESSAGES[text.detail][locale], text.params, (inner) => errorMessage(inner, locale));
}
