/** A message used inside another, e.g. as its `%{reason}`: an id and its own parameters, rendered in the same locale. */
export interface NestedText {
  readonly detail: string;
  readonly params?: ErrorParams;
}

/** Interpolation values for `%{name}` placeholders in catalog messages. */
export type ErrorParams = Readonly<Record<string, string | number | NestedText>>;

/**
 * Substitutes `%{name}` placeholders; one without a value is left as it is. A nested message
 * is rendered by `nested` (without one, its id stands in).
 */
export function interpolate(template: string, params?: ErrorParams, nested?: (text: NestedText) => string): string {
  if (!params) return template;
  return template.replace(/%\{(\w+)\}/g, (placeholder, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(params, name)) return placeholder;
    const value = params[name];
    if (typeof value === 'object' && value !== null) return nested ? nested(value) : String(value.detail);
    return String(value);
  });
}
