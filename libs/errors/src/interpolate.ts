/** Interpolation values for `%{name}` placeholders in catalog messages. */
export type ErrorParams = Readonly<Record<string, string | number>>;

/** Substitutes `%{name}` placeholders; one without a value is left as it is. */
export function interpolate(template: string, params?: ErrorParams): string {
  if (!params) return template;
  return template.replace(/%\{(\w+)\}/g, (placeholder, name: string) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : placeholder,
  );
}
