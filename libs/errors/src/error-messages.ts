import type { SupportedLocale } from './error-catalog.data';
import { ERROR_MESSAGES } from './error-messages.data';
import { interpolate } from './interpolate';

export type ErrorMessageId = keyof typeof ERROR_MESSAGES;

/** The `%{name}` placeholders of a template, as a union of names. */
type Placeholders<Template extends string> = Template extends `${string}%{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/** The values an id's template needs: exactly its placeholders. */
export type ErrorMessageParams<Id extends ErrorMessageId> = {
  readonly [Name in Placeholders<(typeof ERROR_MESSAGES)[Id]['en']>]: string | number;
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

/** A specific message rendered in a locale (the same `%{name}` interpolation as the catalog). */
export function errorMessage(text: ErrorDetail, locale: SupportedLocale): string {
  return interpolate(ERROR_MESSAGES[text.detail][locale], text.params);
}
